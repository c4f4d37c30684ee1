// A kubeadm snapshot in a simulation (test/fixtures/snapshots/kubeadm-kube-system.yaml, as
// `kubectl get nodes,pods,replicasets,daemonsets,deployments` captures it): the kube-proxy
// DaemonSet's pods and CoreDNS's ReplicaSet's pods keep their owners, so the controllers adopt them
// and make no new ones. The DaemonSet's pods are known current by their pod-template-generation
// label (kubesim does not compute upstream's controller-revision-hash); a template change bumps the
// DaemonSet's template generation, and the rolling update replaces them. Nodes a scenario makes are
// registered with this release's kubelet version; a snapshot's nodes keep theirs, and their uid
// as the owner of their mirror pods.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaemonSet, Node, Pod } from '../../src/api/types.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { packageRoot } from '../../src/util/paths.js';

const snapshot = join(packageRoot(), 'test', 'fixtures', 'snapshots', 'kubeadm-kube-system.yaml');
const scenario = `
name: kubeadm
seed: 1
duration: 10m
cluster:
  snapshot: ${snapshot}
  pools:
    - { name: extra, count: 1, cpu: "4", memory: 8Gi }
`;

const kubeSystem = async (sim: Simulation) =>
  (await sim.server.list<Pod>('pods', { namespace: 'kube-system' })).items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => p.metadata.name!)
    .sort();

describe('a kubeadm snapshot in a simulation', () => {
  it('adopts the snapshot pods of kube-proxy and CoreDNS, and rolls kube-proxy on a template change', async () => {
    const sim = new Simulation(parseScenario(scenario, 'kubeadm.yaml', '.'));
    await sim.setup();
    await sim.loop.runFor(60_000);
    const proxies = (names: string[]) => names.filter((n) => n.startsWith('kube-proxy-'));
    const names = await kubeSystem(sim);
    // the snapshot's three kube-proxy pods, and one new one for the node the scenario added
    expect(proxies(names).filter((n) => n.endsWith('abcd'))).toEqual([
      'kube-proxy-0abcd',
      'kube-proxy-1abcd',
      'kube-proxy-2abcd',
    ]);
    expect(proxies(names)).toHaveLength(4);
    expect(names.filter((n) => n.startsWith('coredns-'))).toEqual([
      'coredns-674b8bbfcf-0x9z',
      'coredns-674b8bbfcf-1x9z',
    ]);

    const nodes = new Map(
      (await sim.server.list<Node>('nodes')).items.map((n) => [n.metadata.name!, n.status?.nodeInfo]),
    );
    expect(nodes.get('extra-0000')).toMatchObject({ kubeletVersion: 'v1.34.0', operatingSystem: 'linux' });
    expect(nodes.get('cp-1')?.kubeletVersion).toBe('v1.34.0');

    // the mirror pods' Node owner is the created node cp-1 (its snapshot uid was mapped to the new
    // one), not an owner outside the cluster
    const cp1 = await sim.server.get<Node>('nodes', '', 'cp-1');
    const etcd = await sim.server.get<Pod>('pods', 'kube-system', 'etcd-cp-1');
    expect(etcd.metadata.ownerReferences).toMatchObject([
      { kind: 'Node', name: 'cp-1', uid: cp1.metadata.uid },
    ]);

    const ds = await sim.server.get<DaemonSet>('daemonsets', 'kube-system', 'kube-proxy');
    ds.spec.template.spec.containers[0]!.image = 'registry.k8s.io/kube-proxy:v1.34.1';
    const updated = await sim.server.update(ds);
    expect(updated.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('2');
    await sim.loop.runFor(300_000);
    const after = proxies(await kubeSystem(sim));
    expect(after).toHaveLength(4);
    expect(after.filter((n) => n.endsWith('abcd'))).toEqual([]);
  }, 240_000);
});

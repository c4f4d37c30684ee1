// Dynamic Resource Allocation in a simulation (examples/scenarios/gpu-pool.yaml): the kubelets of
// the h100 pool publish their GPUs as ResourceSlices, the ResourceClaim controller makes each pod's
// claims from its templates, the scheduler allocates and reserves them, the kubelet prepares them
// before the sandbox, and claims go with the pods that no longer need them. Hand-checked figures are
// in the scenario's description.
import { describe, expect, it } from 'vitest';
import type { ResourceClaim, ResourceSlice } from '../../src/api/resource-types.js';
import type { Pod } from '../../src/api/types.js';
import { loadScenario, parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { kubesim } from '../cli/harness.js';

const list = async <T>(sim: Simulation, resource: string) =>
  (await sim.server.list<T & { metadata: { name?: string } }>(resource)).items;

describe('GPU pool scenario through `kubesim simulate`', () => {
  it('runs every pod whose claims fit and keeps the rest Pending with "cannot allocate all claims"', () => {
    const r = kubesim(['simulate', 'examples/scenarios/gpu-pool.yaml', '-o', 'json', '--no-progress']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    // 3 infer + 4 train + 1 replacement (h100-0001 deleted) + 3 scaled up; 2 never placed
    expect(report.pods).toMatchObject({ created: 11, scheduled: 9, pendingAtEnd: 2, runningAtEnd: 4 });
    expect(report.deployments).toEqual([
      expect.objectContaining({ name: 'default/infer', replicas: 6, ready: 4 }),
    ]);
    expect(report.pendingReasons).toEqual([
      {
        message:
          '0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
        pods: 2,
      },
    ]);
    // every start waited for the driver's NodePrepareResources (median 3 s, sigma 0.2): the fastest
    // start (about 1 s of sandbox, CNI and container start besides) cannot be below 2 s
    expect(Math.min(...report.startupLatencySamplesMs)).toBeGreaterThan(2000);
  });
});

describe('ResourceClaim controller and kubelet claim preparation (library)', () => {
  it('makes claims from templates, reserves and deallocates them, and deletes them with their pods', async () => {
    const sim = new Simulation(loadScenario('examples/scenarios/gpu-pool.yaml'));
    await sim.setup();
    await sim.loop.runFor(60_000);
    // one slice per GPU node, in a pool named after the node, owned by the Node
    const slices = await list<ResourceSlice>(sim, 'resourceslices');
    expect(slices.map((s) => [s.spec.nodeName, s.spec.pool.name, s.spec.devices?.length])).toEqual([
      ['h100-0000', 'h100-0000', 4],
      ['h100-0001', 'h100-0001', 4],
    ]);
    expect(slices[0].metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: 'h100-0000' });
    const pods = await list<Pod>(sim, 'pods');
    const claims = await list<ResourceClaim>(sim, 'resourceclaims');
    expect(pods).toHaveLength(5);
    expect(claims).toHaveLength(5);
    for (const p of pods) {
      expect(p.status?.phase).toBe('Running');
      const [status] = p.status!.resourceClaimStatuses as { name: string; resourceClaimName: string }[];
      const podClaim = p.metadata.labels!.app === 'train' ? 'gpus' : 'gpu';
      expect(status.name).toBe(podClaim);
      // <pod>-<claim>-<5 random characters>
      expect(status.resourceClaimName).toMatch(new RegExp(`^${p.metadata.name}-${podClaim}-[a-z0-9]{5}$`));
      const c = claims.find((x) => x.metadata.name === status.resourceClaimName)!;
      expect(c.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Pod', uid: p.metadata.uid, controller: true }),
      ]);
      expect(c.metadata.annotations?.['resource.kubernetes.io/pod-claim-name']).toBe(podClaim);
      expect(c.status?.reservedFor).toEqual([
        { resource: 'pods', name: p.metadata.name, uid: p.metadata.uid },
      ]);
      const results = c.status!.allocation!.devices!.results!;
      expect(results).toHaveLength(podClaim === 'gpus' ? 2 : 1);
      // the devices are on the pod's node
      expect(new Set(results.map((x) => x.pool))).toEqual(new Set([p.spec.nodeName]));
    }
    // 7 of 8 GPUs are allocated, no device twice
    const devices = claims.flatMap((c) =>
      c.status!.allocation!.devices!.results!.map((x) => `${x.pool}/${x.device}`),
    );
    expect(new Set(devices).size).toBe(7);

    // the first wave of training pods ends at about 3 min: their claims are deallocated and deleted,
    // the second wave gets new ones
    await sim.loop.runFor(150_000);
    const after = await list<ResourceClaim>(sim, 'resourceclaims');
    const finished = pods.filter((p) => p.metadata.labels!.app === 'train').map((p) => p.metadata.uid);
    expect(after.filter((c) => finished.includes(c.metadata.ownerReferences![0].uid))).toEqual([]);
    expect(after).toHaveLength(5);
    expect(sim.cm.claims.stats).toMatchObject({ deallocated: 2, deleted: 2 });

    // h100-0001 deleted at 7m: its slice goes with it; 40 s later the pod GC removes its pods, whose
    // reservations are dropped and claims collected
    await sim.loop.runFor(7 * 60_000 + 60_000 - 210_000);
    expect((await list<ResourceSlice>(sim, 'resourceslices')).map((s) => s.spec.nodeName)).toEqual([
      'h100-0000',
    ]);
    const live = await list<Pod>(sim, 'pods');
    const left = await list<ResourceClaim>(sim, 'resourceclaims');
    for (const c of left) {
      expect(live.some((p) => p.metadata.uid === c.metadata.ownerReferences![0].uid)).toBe(true);
      for (const r of c.status?.allocation?.devices?.results ?? []) expect(r.pool).toBe('h100-0000');
    }
    await sim.shutdown();
  });

  it('does not start a pod bound by hand whose claim the scheduler never allocated', async () => {
    const text = `
name: bound-by-hand
duration: 1m
cluster:
  pools:
    - name: gpu
      count: 1
      devices: [{ driver: gpu.example.com, count: 1 }]
workloads:
  - manifest:
      apiVersion: resource.k8s.io/v1
      kind: ResourceClaimTemplate
      metadata: { name: one, namespace: default }
      spec: { spec: { devices: { requests: [{ name: r, exactly: { deviceClassName: gpu } }] } } }
  - manifest:
      apiVersion: v1
      kind: Pod
      metadata: { name: p, namespace: default }
      spec:
        nodeName: gpu-0000
        resourceClaims: [{ name: c, resourceClaimTemplateName: one }]
        containers: [{ name: c, image: busybox }]
`;
    const sim = new Simulation(parseScenario(text, 'bound-by-hand.yaml', '.'));
    await sim.setup();
    await sim.loop.runFor(30_000);
    const [pod] = await list<Pod>(sim, 'pods');
    const [claim] = await list<ResourceClaim>(sim, 'resourceclaims');
    expect(pod.status?.phase).toBe('Pending');
    expect(claim.metadata.name).toMatch(/^p-c-[a-z0-9]{5}$/);
    expect(claim.status?.allocation).toBeUndefined();
    const events = (await list<{ reason: string; message: string; count?: number }>(sim, 'events')).filter(
      (e) => e.reason === 'FailedPrepareDynamicResources',
    );
    // the first attempt comes before the controller made the claim; later ones find it unreserved
    const prefix = 'Failed to prepare dynamic resources: prepare dynamic resources:';
    expect(events.map((e) => e.message).sort()).toEqual([
      `${prefix} pod "default/p": ResourceClaim not created yet`,
      `${prefix} pod p (${pod.metadata.uid}) is not allowed to use ResourceClaim ${claim.metadata.name} (${claim.metadata.uid})`,
    ]);
    // tried again after the pod worker's back-off (10 to 15 s): 2 or 3 attempts in 30 s
    expect(sim.kubelet.stats.prepareFailures).toBeGreaterThanOrEqual(2);
    expect(sim.kubelet.stats.podsStarted).toBe(0);
    await sim.shutdown();
  });
});

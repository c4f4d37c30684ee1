// --min-nodes over node groups (template × zone, balanced like the cluster autoscaler's
// balance-similar-node-groups), several templates priced, and what stops it when no number of
// nodes is enough. Counts worked by hand on examples/snapshot: api pods (1 cpu, 2Gi) fit 15 times
// today, so 50 replicas need 35 more.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Pod } from '../../src/api/types.js';
import { loadPlanCluster } from '../../src/capacity/cluster-input.js';
import { minNodesChoice, minNodesToAdd } from '../../src/capacity/planner.js';
import { packageRoot } from '../../src/util/paths.js';
import { kubesimInProcess } from '../cli/harness.js';

const fx = (f: string) => join(packageRoot(), 'examples', 'snapshot', f);
const api: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'api', namespace: 'shop', labels: { app: 'api' } },
  spec: {
    containers: [
      { name: 'api', image: 'shop/api:2.4', resources: { requests: { cpu: '1', memory: '2Gi' } } },
    ],
  },
};
const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

describe('--min-nodes over node groups', () => {
  it('spreads the nodes over the zones, smallest group of the instance type first', async () => {
    const { cluster } = await loadPlanCluster([fx('cluster.yaml')]);
    // b-2 is an m5.2xlarge (8 cpu, 32Gi: 8 api pods); 35 / 8 → 5 nodes. The m5.2xlarge groups hold
    // 0 (a), 2 (b-1, b-2) and 0 (c) nodes, so the 5 go a, c, a, c, a: a 3, c 2
    const r = minNodesToAdd(cluster, api, 50, 'b-2', { zones, kernel: 'js' });
    expect(r.nodes).toBe(5);
    expect(r.perZone).toEqual({ 'eu-west-1a': 3, 'eu-west-1c': 2 });
    expect(r.tried.find((t) => t.add === 4)!.fits).toBe(15 + 4 * 8);
    // pinned to one zone, the same count (resources only) all in b
    const pinned = minNodesToAdd(cluster, api, 50, 'b-2', { zones, zone: 'eu-west-1b', kernel: 'js' });
    expect(pinned).toMatchObject({ nodes: 5, zone: 'eu-west-1b' });
    expect(pinned.perZone).toBeUndefined();
  });

  it('several templates: each priced, the cheapest chosen', async () => {
    const { cluster } = await loadPlanCluster([fx('cluster.yaml')]);
    // a-1: m5.xlarge, 4 api pods a node → 9 (a group sizes a 2, b 0, c 0 → b, c, b, c, b, c, b, c, a);
    // b-2: 5; c-1: t3.small (2 cpu, 4Gi), 2 a node → 18
    const c = minNodesChoice(
      cluster,
      api,
      50,
      [
        { template: 'a-1', costPerNode: 0.19 },
        { template: 'b-2', costPerNode: 0.38 },
        { template: 'c-1', costPerNode: 0.1 },
      ],
      { zones, kernel: 'js' },
    );
    expect(c.options.map((o) => [o.template, o.nodes, o.cost])).toEqual([
      ['a-1', 9, 1.71],
      ['b-2', 5, 1.9],
      ['c-1', 18, 1.8],
    ]);
    expect(c.options[0]!.perZone).toEqual({ 'eu-west-1a': 1, 'eu-west-1b': 4, 'eu-west-1c': 4 });
    expect(c.best).toBe(0);
  });

  it('says what stops it when no number of nodes is enough: the next replica’s FitError', async () => {
    const { cluster } = await loadPlanCluster([fx('cluster.yaml')]);
    const ssd: Pod = { ...api, spec: { ...api.spec, nodeSelector: { disktype: 'ssd' } } };
    const r = minNodesToAdd(cluster, ssd, 5, 'b-2', { zones, kernel: 'js', limit: 4 });
    expect(r.nodes).toBeUndefined();
    expect(r.tried.map((t) => t.add).sort()).toEqual([0, 1, 2, 4]);
    // on the cluster grown by 4: the control-plane node is tainted, the other 9 lack disktype=ssd
    expect(r.stopReason).toMatch(
      /^0\/10 nodes are available: 1 node\(s\) had untolerated taint\(s\), 9 node\(s\) didn't match Pod's node affinity\/selector\./,
    );
  });

  /** `kubesim plan` on the example snapshot and api pod, for 50 replicas unless `args` say otherwise */
  const plan = (...args: string[]) =>
    kubesimInProcess([
      'plan',
      '--cluster',
      fx('cluster.yaml'),
      '--pod',
      fx('pod-api.yaml'),
      '--no-progress',
      ...args,
    ]);

  it('through the CLI: several templates as TEMPLATE:COST, JSON with the choice', async () => {
    const r = await plan('--min-nodes', 'b-2:0.38', 'c-1:0.02', '--replicas', '50', '-o', 'json');
    expect(r.status).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.best).toBe(1);
    expect(c.options[1]).toMatchObject({ template: 'c-1', nodes: 18, cost: 0.36 });
    const text = await plan('--min-nodes', 'b-2:0.38', 'c-1:0.02', '--replicas', '50');
    expect(text.stdout.split('\n')[0]).toBe(
      'cheapest: add 18 node(s) like c-1 (eu-west-1a: 7, eu-west-1b: 6, eu-west-1c: 5) for 50 replica(s) to fit, cost 0.36',
    );
    const bad = await plan('--min-nodes', 'nope:1', '--replicas', '5');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--min-nodes "nope:1": no node named "nope" in the cluster');
    const usage = await plan('--min-nodes', 'b-2:cheap', '--replicas', '5');
    expect(usage.status).toBe(2);
  });
});

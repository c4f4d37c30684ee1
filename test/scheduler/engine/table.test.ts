import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import { zoneKey } from '../../../src/api/topology.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { compilePod } from '../../../src/scheduler/engine/podquery.js';
import { resolveScoring } from '../../../src/scheduler/engine/scoring.js';
import { podRequests } from '../../../src/scheduler/engine/resources.js';
import { KernelOutput } from '../../../src/scheduler/engine/output.js';
import { JsKernel } from '../../../src/scheduler/engine/js.js';
import { WasmKernel } from '../../../src/scheduler/engine/wasm.js';
import { NUM_SCORE_PLUGINS } from '../../../src/scheduler/engine/types.js';
import * as L from '../../../src/scheduler/engine/layout.js';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { Rng } from '../../../src/util/rng.js';
import { nodeOf, podOf } from '../../helpers/builders.js';

/** Per node name: status, reasons, raw scores, total — comparable across tables whose slots differ. */
function outcome(table: NodeTable, pod: Pod, kernel = new WasmKernel()): Map<string, string> {
  const out = new KernelOutput(table);
  out.status.fill(0);
  kernel.filterAndScore(table, compilePod(table, pod, resolveScoring()), out, { ignoreFilters: false });
  const m = new Map<string, string>();
  for (const s of table.slots()) {
    const raw =
      out.status[s] === 1 ? Array.from({ length: NUM_SCORE_PLUGINS }, (_, p) => out.raw(p)[s]).join(',') : '';
    m.set(
      table.nodeName(s),
      `${out.status[s]}|${out.status[s] === 2 ? out.reasons[s] : 0}|${raw}|${out.status[s] === 1 ? out.total[s] : 0}`,
    );
  }
  return m;
}

/** the FREE column cell (allocatable − requested) of resource row r on a slot */
function freeCell(t: NodeTable, slot: number, r: number): number {
  return t.mem.f64[(t.mem.i32[(t.header >> 2) + L.H_OFF_FREE] >> 3) + r * t.capacity + slot];
}

describe('NodeTable incremental updates', () => {
  it('a table built by random add/update/remove of nodes and pods equals one built from the final state', () => {
    const cluster = generateCluster({ seed: 11, nodes: 300 });
    const rng = new Rng(99);
    const inc = new NodeTable({ initialCapacity: 32 });
    const liveNodes = new Map<string, Node>();
    const livePods = new Map<string, Pod>();
    for (const n of cluster.nodes) {
      inc.addNode(n);
      liveNodes.set(n.metadata.name!, n);
    }
    for (const p of cluster.pods) {
      inc.addPod(p);
      livePods.set(p.metadata.name!, p);
    }
    const podList = [...livePods.values()];
    for (let i = 0; i < 600; i++) {
      const op = rng.int(5);
      if (op === 0) {
        // remove a pod
        const p = rng.pick(podList);
        if (livePods.delete(p.metadata.name!)) inc.removePod(p);
      } else if (op === 1) {
        // update a node: relabel, retaint, resize
        const n = rng.pick(cluster.nodes);
        if (!liveNodes.has(n.metadata.name!)) continue;
        const u: Node = structuredClone(n);
        u.metadata.labels!['example.com/generation'] = String(rng.int(9));
        u.spec = {
          ...u.spec,
          unschedulable: rng.next() < 0.3,
          taints:
            rng.next() < 0.5
              ? [
                  {
                    key: 'k' + rng.int(3),
                    value: 'v',
                    effect: rng.pick(['NoSchedule', 'PreferNoSchedule'] as const),
                  },
                ]
              : undefined,
        };
        u.status!.allocatable = { ...u.status!.allocatable, cpu: `${1000 * (1 + rng.int(16))}m` };
        inc.updateNode(u);
        liveNodes.set(n.metadata.name!, u);
      } else if (op === 2) {
        // remove a node (its pods wait for it)
        const n = rng.pick(cluster.nodes);
        if (liveNodes.delete(n.metadata.name!)) inc.removeNode(n.metadata.name!);
      } else if (op === 3) {
        // re-add a node
        const n = rng.pick(cluster.nodes);
        if (!liveNodes.has(n.metadata.name!)) {
          inc.addNode(n);
          liveNodes.set(n.metadata.name!, n);
        }
      } else {
        // bind a new pod
        const p = podOf({
          node: rng.pick(cluster.nodes).metadata.name,
          reqs: [{ cpu: `${rng.range(1, 900)}m`, memory: `${rng.range(1, 900)}Mi` }],
          hostPorts: rng.next() < 0.2 ? [{ port: 8080 }] : undefined,
        });
        inc.addPod(p);
        livePods.set(p.metadata.name!, p);
      }
    }
    const fresh = new NodeTable({ initialCapacity: 512 });
    for (const n of liveNodes.values()) fresh.addNode(n);
    for (const p of livePods.values()) fresh.addPod(p);
    expect(inc.size).toBe(fresh.size);
    for (const pod of generatePods({ seed: 5, count: 25, cluster })) {
      expect(outcome(inc, pod)).toEqual(outcome(fresh, pod));
    }
    // and per-node accounting agrees
    for (const name of liveNodes.keys()) {
      const a = inc.nodeIndex(name),
        b = fresh.nodeIndex(name);
      for (const r of ['cpu', 'memory', 'pods', 'nvidia.com/gpu'])
        expect(inc.requested(a, r)).toBe(fresh.requested(b, r));
      expect(inc.nonZeroRequested(a)).toEqual(fresh.nonZeroRequested(b));
      expect(inc.usedPorts(a)).toEqual(fresh.usedPorts(b));
      // the FREE column the WASM filter reads stays exactly allocatable − requested
      for (let r = 0; r < inc.resources.size; r++) {
        const name = inc.resources.value(r);
        expect(freeCell(inc, a, r)).toBe(inc.allocatable(a, name) - inc.requested(a, name));
      }
    }
  });

  it('keeps columns across capacity growth', () => {
    const t = new NodeTable({ initialCapacity: 32 });
    for (let i = 0; i < 200; i++)
      t.addNode(
        nodeOf(`n${i}`, {
          capacity: { cpu: `${i + 1}`, pods: '10' },
          labels: { idx: String(i) },
          taints: i % 7 === 0 ? [{ key: `t${i}`, effect: 'NoSchedule' }] : undefined,
        }),
      );
    expect(t.capacity).toBeGreaterThanOrEqual(200);
    for (let i = 0; i < 200; i++) {
      const s = t.nodeIndex(`n${i}`);
      expect(t.allocatable(s, 'cpu')).toBe((i + 1) * 1000);
      expect(t.nodeTaints(s).map((x) => x.key)).toEqual(i % 7 === 0 ? [`t${i}`] : []);
    }
  });

  it('applies pods bound before their node exists, and after the node is removed and re-added', () => {
    const t = new NodeTable();
    t.addPod(podOf({ name: 'early', node: 'late-node', reqs: [{ cpu: '250m', memory: '1Gi' }] }));
    const s = t.addNode(nodeOf('late-node', { capacity: { cpu: '4', memory: '8Gi', pods: '10' } }));
    expect(t.requested(s, 'cpu')).toBe(250);
    expect(t.requested(s, 'pods')).toBe(1);
    t.removeNode('late-node');
    expect(t.size).toBe(0);
    const s2 = t.addNode(nodeOf('late-node', { capacity: { cpu: '4', memory: '8Gi', pods: '10' } }));
    expect(t.requested(s2, 'memory')).toBe(1024 ** 3);
    t.removePod('default/early');
    expect(t.requested(s2, 'cpu')).toBe(0);
    expect(t.requested(s2, 'pods')).toBe(0);
  });

  it('scan order interleaves zones like upstream nodeTree.list()', () => {
    const t = new NodeTable();
    const z = (name: string, zone: string) =>
      nodeOf(name, {
        labels: { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': zone },
      });
    for (const [n, zone] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['a3', 'a'],
      ['b1', 'b'],
      ['c1', 'c'],
      ['b2', 'b'],
    ] as const)
      t.addNode(z(n, zone));
    expect(Array.from(t.order, (s) => t.nodeName(s))).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    t.removeNode('b1');
    expect(Array.from(t.order, (s) => t.nodeName(s))).toEqual(['a1', 'b2', 'c1', 'a2', 'a3']);
    expect(zoneKey(z('x', 'q'))).toBe('r:\x00:q');
  });

  it('topology rows hold the domain ids written for them, and survive the table growing', () => {
    const t = new NodeTable({ initialCapacity: 32 });
    t.addNode(nodeOf('n1', { labels: { zone: 'a', rack: 'r1' } }));
    const zk = t.registerTopologyKey('zone');
    t.addNode(nodeOf('n2', { labels: { zone: 'b' } }));
    const rk = t.registerTopologyKey('rack');
    const [s1, s2] = [t.nodeIndex('n1'), t.nodeIndex('n2')];
    t.setTopologyDomains(zk, [s1, s2], [0, 1]);
    t.setTopologyDomains(rk, [s1, s2], [0, -1]);
    expect(t.registerTopologyKey('zone')).toBe(zk);
    for (let i = 0; i < 40; i++) t.addNode(nodeOf(`x${i}`, {}));
    t.registerTopologyKey('k3');
    expect([t.topologyDomain(zk, s1), t.topologyDomain(zk, s2)]).toEqual([0, 1]);
    expect([t.topologyDomain(rk, s1), t.topologyDomain(rk, s2)]).toEqual([0, -1]);
    t.removeNode('n1');
    expect(t.topologyDomain(zk, s1)).toBe(-1);
  });

  it('synthesizeConditionTaints adds the node lifecycle controller taints for not-ready nodes', () => {
    const node = (name: string, status: 'True' | 'False' | 'Unknown'): Node => ({
      ...nodeOf(name, { capacity: { pods: '10' } }),
      status: { allocatable: { pods: '10' }, conditions: [{ type: 'Ready', status }] },
    });
    const plain = new NodeTable();
    const synth = new NodeTable({ synthesizeConditionTaints: true });
    for (const t of [plain, synth])
      for (const [n, s] of [
        ['ok', 'True'],
        ['down', 'False'],
        ['gone', 'Unknown'],
      ] as const)
        t.addNode(node(n, s));
    const pod = podOf();
    const feasible = (t: NodeTable) =>
      [...outcome(t, pod, new JsKernel()).entries()]
        .filter(([, v]) => v.startsWith('1|'))
        .map(([k]) => k)
        .sort();
    expect(feasible(plain)).toEqual(['down', 'gone', 'ok']); // kube-scheduler has no Ready filter
    expect(feasible(synth)).toEqual(['ok']);
    expect(synth.nodeTaints(synth.nodeIndex('gone'))).toEqual([
      { key: 'node.kubernetes.io/unreachable', value: '', effect: 'NoSchedule' },
    ]);
  });

  it('rejects a query compiled before a table change', () => {
    const t = new NodeTable();
    t.addNode(nodeOf('n', { capacity: { pods: '10' } }));
    const q = compilePod(t, podOf());
    t.addPod(podOf({ node: 'n' }));
    expect(() => new JsKernel().filterAndScore(t, q, new KernelOutput(t))).toThrow(
      /changed since it was compiled/,
    );
  });
});

describe('pod requests (component-helpers PodRequests)', () => {
  it('max(sum of containers + sidecars, init peaks) + overhead; non-zero defaults only for missing requests', () => {
    const p = podOf({
      reqs: [{ cpu: '100m' }, { memory: '0' }],
      initReqs: [
        { req: { cpu: '50m', memory: '10Mi' }, sidecar: true },
        { req: { cpu: '1', memory: '1Mi' } },
      ],
      overhead: { cpu: '10m' },
    });
    const r = podRequests(p);
    expect(r.get('cpu')).toBe(1000 + 50 + 10); // init peak 1000 + sidecar 50 > 150 sum
    expect(r.get('memory')).toBe(10 * 1024 * 1024 + 1024 * 1024); // init 1Mi + sidecar 10Mi
    const nz = podRequests(p, true);
    // containers: c0 has no memory → 200Mi; c1 has memory 0 (kept) and no cpu → 100m
    expect(nz.get('cpu')).toBe(Math.max(100 + 100 + 50, 1000 + 50) + 10);
    expect(nz.get('memory')).toBe(Math.max(200 * 1024 * 1024 + 0 + 10 * 1024 * 1024, 11 * 1024 * 1024));
  });
  it('names the pod and field of a bad quantity', () => {
    expect(() => podRequests(podOf({ name: 'bad', reqs: [{ cpu: 'lots' }] }))).toThrow(
      /pod default\/bad: spec.containers\[0\].resources.requests: invalid quantity "lots" for cpu/,
    );
  });
});

describe('nonZeroCpuMem agrees with podRequests(pod, true)', () => {
  it('on generated pods with init containers, sidecars and overhead', async () => {
    const { nonZeroCpuMem } = await import('../../../src/scheduler/engine/resources.js');
    const cluster = generateCluster({ seed: 3, nodes: 20 });
    const pods = generatePods({ seed: 4, count: 400, cluster });
    pods[0].spec.overhead = { cpu: '30m', memory: '7Mi' };
    for (const p of [...pods, ...cluster.pods]) {
      const full = podRequests(p, true);
      expect(nonZeroCpuMem(p)).toEqual({ cpu: full.get('cpu') ?? 0, memory: full.get('memory') ?? 0 });
    }
  });
});

describe('podResourceSums (the one-pass requests of compile and assume)', () => {
  it('agrees with podRequests and nonZeroCpuMem on generated and hand-made pods', async () => {
    const { podResourceSums, nonZeroCpuMem } = await import('../../../src/scheduler/engine/resources.js');
    const cluster = generateCluster({ seed: 5, nodes: 20 });
    const pods = [
      ...generatePods({ seed: 6, count: 400, cluster }),
      ...cluster.pods,
      // repeated keys across containers, an explicit zero, an extended resource, no requests at all
      podOf({
        reqs: [
          { cpu: '100m', memory: '0', 'nvidia.com/gpu': 1 },
          { cpu: '1', 'ephemeral-storage': '1Gi' },
          {},
        ],
      }),
      podOf({ reqs: [{ memory: '64Mi' }, { cpu: '0' }] }),
      podOf({}),
      podOf({ reqs: [{ cpu: '250m' }], overhead: { cpu: '10m', memory: '1Mi' } }),
    ];
    for (const p of pods) {
      const sums = podResourceSums(p);
      expect(new Map(sums.names.map((k, i) => [k, sums.amounts[i]]))).toEqual(podRequests(p));
      expect({ cpu: sums.nzCpu, memory: sums.nzMem }).toEqual(nonZeroCpuMem(p));
    }
  });
  it('names the pod and the field of a bad quantity on the containers-only path and the general one', async () => {
    const { podResourceSums } = await import('../../../src/scheduler/engine/resources.js');
    expect(() => podResourceSums(podOf({ name: 'bad', reqs: [{ cpu: '1' }, { memory: '12Qi' }] }))).toThrow(
      /pod default\/bad: spec.containers\[1\].resources.requests: invalid quantity "12Qi" for memory/,
    );
    expect(() =>
      podResourceSums(podOf({ name: 'bad', reqs: [{ cpu: '1' }], initReqs: [{ req: { cpu: 'x' } }] })),
    ).toThrow(/pod default\/bad: spec.initContainers\[0\].resources.requests: invalid quantity "x" for cpu/);
    expect(() =>
      podResourceSums(podOf({ name: 'bad', reqs: [{ cpu: '1' }], overhead: { memory: 'abc' } })),
    ).toThrow(/pod default\/bad: spec.overhead: invalid quantity "abc" for memory/);
  });
});

describe('compilePod fast paths', () => {
  const taints = [
    { key: 'dedicated', value: 'db', effect: 'NoSchedule' as const },
    { key: 'soft', value: 'x', effect: 'PreferNoSchedule' as const },
    { key: 'gone', effect: 'NoExecute' as const },
  ];
  function taintedTable(): NodeTable {
    const t = new NodeTable();
    t.addNode(nodeOf('plain', { capacity: { cpu: '4', memory: '8Gi', pods: '110' } }));
    taints.forEach((taint, i) =>
      t.addNode(nodeOf(`t${i}`, { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, taints: [taint] })),
    );
    t.addNode(
      nodeOf('both', {
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        taints: [taints[1], taints[0]],
      }),
    );
    return t;
  }
  it('a pod without tolerations gets the same verdicts and scores as one whose tolerations match nothing', () => {
    const t = taintedTable();
    const bare = podOf({ reqs: [{ cpu: '100m' }] });
    const useless = {
      ...bare,
      spec: { ...bare.spec, tolerations: [{ key: 'no-such-key', operator: 'Exists' as const }] },
    };
    for (const kernel of [new JsKernel(), new WasmKernel()]) {
      const a = outcome(t, bare, kernel);
      expect(a).toEqual(outcome(t, useless, kernel));
      expect(a.get('plain')!.startsWith('1|')).toBe(true);
      expect(a.get('t1')!.startsWith('1|')).toBe(true); // PreferNoSchedule only scores
      expect(a.get('t0')!.startsWith('2|')).toBe(true);
      expect(a.get('t2')!.startsWith('2|')).toBe(true);
    }
  });
  it('the cached no-toleration masks follow taints interned after the first compile', () => {
    const t = taintedTable();
    const bare = podOf({ reqs: [{ cpu: '100m' }] });
    outcome(t, bare);
    // 40 new taints: the table's taint bitset grows past one word
    for (let i = 0; i < 40; i++)
      t.addNode(
        nodeOf(`late${i}`, {
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          taints: [{ key: `late${i}`, effect: i % 2 ? 'NoSchedule' : 'PreferNoSchedule' }],
        }),
      );
    const after = outcome(t, bare);
    for (let i = 0; i < 40; i++) expect(after.get(`late${i}`)!.startsWith(i % 2 ? '2|' : '1|')).toBe(true);
    const useless = {
      ...bare,
      spec: { ...bare.spec, tolerations: [{ key: 'no-such-key', operator: 'Exists' as const }] },
    };
    expect(after).toEqual(outcome(t, useless));
  });
  it("assume with the query's accounting changes the columns exactly as a plain addPod", () => {
    const a = taintedTable();
    const b = taintedTable();
    const pod = podOf({
      reqs: [{ cpu: '300m', 'nvidia.com/gpu': 1 }, { memory: '1Gi' }],
      hostPorts: [{ port: 8080 }],
    });
    const q = compilePod(a, pod);
    const bound = { ...pod, spec: { ...pod.spec, nodeName: 'plain' } };
    a.addPod(bound, q.accounting);
    b.addPod(bound);
    // accounting from another table is not trusted: recomputed for this one
    const other = taintedTable();
    other.addPod(bound, q.accounting);
    for (const t of [b, other]) {
      for (const r of ['cpu', 'memory', 'pods', 'nvidia.com/gpu'])
        expect(t.requested(t.nodeIndex('plain'), r)).toBe(a.requested(a.nodeIndex('plain'), r));
      expect(t.nonZeroRequested(t.nodeIndex('plain'))).toEqual(a.nonZeroRequested(a.nodeIndex('plain')));
      expect(t.usedPorts(t.nodeIndex('plain'))).toEqual(a.usedPorts(a.nodeIndex('plain')));
    }
    expect(a.requested(a.nodeIndex('plain'), 'cpu')).toBe(300);
    expect(a.nonZeroRequested(a.nodeIndex('plain'))).toEqual({
      cpu: 400,
      memory: 1024 ** 3 + 200 * 1024 * 1024,
    });
    a.removePod(bound);
    expect(a.requested(a.nodeIndex('plain'), 'cpu')).toBe(0);
    expect(a.usedPorts(a.nodeIndex('plain'))).toEqual([]);
  });
});

describe('compilePod errors name the pod and the field', () => {
  const t = new NodeTable();
  t.addNode(nodeOf('n1', { labels: { zone: 'a' }, capacity: { cpu: '1', memory: '1Gi', pods: '10' } }));
  it('an invalid preferred term throws PodQueryError with its path', () => {
    const pod = podOf({
      name: 'bad-pref',
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
            {
              weight: 2,
              preference: {
                matchExpressions: [
                  { key: 'zone', operator: 'Exists' },
                  { key: 'zone', operator: 'In', values: [] },
                ],
              },
            },
          ],
        },
      },
    });
    expect(() => compilePod(t, pod)).toThrow(
      "pod default/bad-pref: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].preference.matchExpressions[1].values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
  });
  it('an invalid required term is skipped and reported (upstream LazyErrorNodeSelector)', () => {
    const pod = podOf({
      name: 'bad-req',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'zone', operator: 'Gt', values: ['x'] }] },
              { matchFields: [{ key: 'metadata.name', operator: 'Exists' as never }] },
              { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
            ],
          },
        },
      },
    });
    const q = compilePod(t, pod);
    expect(q.affinityErrors).toEqual([
      "pod default/bad-req: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
      'pod default/bad-req: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"',
    ]);
    expect(outcome(t, pod).get('n1')!.startsWith('1|')).toBe(true); // the valid third term matches
  });
});

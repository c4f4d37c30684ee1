// JS vs WASM on randomized clusters: identical feasibility, reasons, raw/normalized/total scores and
// processed counts, for several seeds, full scans and adaptive windows, with pods assumed between
// cycles (the table changes incrementally as it would in a scheduling loop).
import { describe, expect, it } from 'vitest';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { compilePod } from '../../../src/scheduler/engine/podquery.js';
import { resolveScoring } from '../../../src/scheduler/engine/scoring.js';
import { KernelOutput } from '../../../src/scheduler/engine/output.js';
import {
  NUM_SCORE_PLUGINS,
  REASON_RESOURCE_BASE,
  ReasonBit,
  ALL_FILTER_BITS,
  numFeasibleNodesToFind,
} from '../../../src/scheduler/engine/types.js';
import type { FilterScoreOptions, ScoringConfig } from '../../../src/scheduler/engine/types.js';
import { nodeOf, podOf } from '../../helpers/builders.js';
import { js, wasm } from './helpers.js';
import type { NodeSelectorRequirement } from '../../../src/api/types.js';
import {
  applyCrossPod,
  CrossPodWriter,
  type CrossPodInputs,
} from '../../../src/scheduler/engine/crosspod.js';
import { RB_CROSS_POD } from '../../../src/scheduler/engine/layout.js';
import { Rng } from '../../../src/util/rng.js';

function compareRun(table: NodeTable, a: KernelOutput, b: KernelOutput, pa: number, pb: number): void {
  expect(pb).toBe(pa);
  expect(b.feasibleCount).toBe(a.feasibleCount);
  expect(Array.from(b.feasible.subarray(0, b.feasibleCount))).toEqual(
    Array.from(a.feasible.subarray(0, a.feasibleCount)),
  );
  const cap = table.capacity;
  // every examined node: same status and reasons
  const sa = a.status,
    sb = b.status,
    ra = a.reasons,
    rb = b.reasons;
  for (let s = 0; s < cap; s++) {
    if (sa[s] !== sb[s] || (sa[s] === 2 && ra[s] !== rb[s])) {
      throw new Error(
        `node slot ${s}: js status ${sa[s]} reasons ${ra[s]} vs wasm status ${sb[s]} reasons ${rb[s]}`,
      );
    }
  }
  for (let i = 0; i < a.feasibleCount; i++) {
    const s = a.feasible[i];
    for (let p = 0; p < NUM_SCORE_PLUGINS; p++) {
      if (a.raw(p)[s] !== b.raw(p)[s] || a.normalized(p)[s] !== b.normalized(p)[s])
        throw new Error(
          `slot ${s} plugin ${p}: js ${a.raw(p)[s]}/${a.normalized(p)[s]} wasm ${b.raw(p)[s]}/${b.normalized(p)[s]}`,
        );
    }
    if (a.total[s] !== b.total[s]) throw new Error(`slot ${s} total: js ${a.total[s]} wasm ${b.total[s]}`);
  }
  if (a.feasibleCount > 0) {
    expectBest(a);
    expect([b.bestSlot, b.bestTotal, b.tieEvents]).toEqual([a.bestSlot, a.bestTotal, a.tieEvents]);
  }
}

/** the kernel's own selection equals selectHost's scan: first maximum, and one draw per tie on the way */
function expectBest(o: KernelOutput): void {
  let best = o.feasible[0];
  let ties = 0;
  for (let i = 1; i < o.feasibleCount; i++) {
    const s = o.feasible[i];
    if (o.total[s] > o.total[best]) best = s;
    else if (o.total[s] === o.total[best]) ties++;
  }
  expect([o.bestSlot, o.bestTotal, o.tieEvents]).toEqual([best, o.total[best], ties]);
}

/** a cheaper output mode vs the full reference run: filters identical, plus the promised columns */
function compareMode(
  table: NodeTable,
  ref: KernelOutput,
  m: KernelOutput,
  pref: number,
  pm: number,
  output: 'raw' | 'total',
): void {
  expect(pm).toBe(pref);
  expect(Array.from(m.feasible.subarray(0, m.feasibleCount))).toEqual(
    Array.from(ref.feasible.subarray(0, ref.feasibleCount)),
  );
  for (let s = 0; s < table.capacity; s++) {
    if (ref.status[s] !== m.status[s] || (ref.status[s] === 2 && ref.reasons[s] !== m.reasons[s]))
      throw new Error(`${output} mode, node slot ${s}: status/reasons differ`);
  }
  if (output === 'total' && ref.feasibleCount > 0)
    expect([m.bestSlot, m.bestTotal, m.tieEvents]).toEqual([ref.bestSlot, ref.bestTotal, ref.tieEvents]);
  for (let i = 0; i < ref.feasibleCount; i++) {
    const s = ref.feasible[i];
    if (output === 'total') {
      if (m.total[s] !== ref.total[s])
        throw new Error(`total mode, slot ${s}: ${m.total[s]} vs ${ref.total[s]}`);
    } else {
      for (let p = 0; p < NUM_SCORE_PLUGINS; p++)
        if (m.raw(p)[s] !== ref.raw(p)[s])
          throw new Error(`raw mode, slot ${s} plugin ${p}: ${m.raw(p)[s]} vs ${ref.raw(p)[s]}`);
    }
  }
}

function scenario(
  seed: number,
  nodes: number,
  pods: number,
  scoring: ScoringConfig,
  sampling: boolean,
  allReasons: boolean,
  /** per pod: the node-local filters a profile turned off (pod index → mask) */
  disabledFilters: (i: number) => number = () => 0,
): { feasibleSeen: number; filteredSeen: number; reasonsSeen: number } {
  const cluster = generateCluster({ seed, nodes });
  const table = new NodeTable({ initialCapacity: 64 }); // small on purpose: exercises column growth
  for (const n of cluster.nodes) table.addNode(n);
  for (const p of cluster.pods) table.addPod(p);
  const pending = generatePods({ seed: seed + 1000, count: pods, cluster });
  const resolved = resolveScoring(scoring);
  const outJs = new KernelOutput(table);
  const outWasm = new KernelOutput(table);
  const outMode = new KernelOutput(table);
  let start = 0;
  let feasibleSeen = 0;
  let filteredSeen = 0;
  let reasonsSeen = 0;
  for (const [i, pod] of pending.entries()) {
    const q = compilePod(table, pod, resolved);
    const opts: FilterScoreOptions = {
      start,
      numNodesToFind: sampling ? numFeasibleNodesToFind(undefined, table.size) : undefined,
      allReasons,
      disabledFilters: disabledFilters(i),
    };
    outJs.status.fill(0);
    outWasm.status.fill(0);
    const pa = js.filterAndScore(table, q, outJs, opts);
    const pb = wasm.filterAndScore(table, q, outWasm, opts);
    compareRun(table, outJs, outWasm, pa, pb);
    // the cheaper output modes give the same columns they promise
    for (const output of ['raw', 'total'] as const) {
      outMode.status.fill(0);
      const pm = wasm.filterAndScore(table, q, outMode, { ...opts, output });
      compareMode(table, outJs, outMode, pa, pm, output);
    }
    feasibleSeen += outJs.feasibleCount;
    filteredSeen += pa - outJs.feasibleCount;
    for (let s = 0; s < table.capacity; s++) if (outJs.status[s] === 2) reasonsSeen |= outJs.reasons[s];
    start = (start + pa) % table.size;
    // assume the best node (highest total, first in examined order on ties) like a scheduling loop
    if (outJs.feasibleCount > 0) {
      let best = outJs.feasible[0];
      for (let i = 1; i < outJs.feasibleCount; i++)
        if (outJs.total[outJs.feasible[i]] > outJs.total[best]) best = outJs.feasible[i];
      table.addPod({ ...pod, spec: { ...pod.spec, nodeName: table.nodeName(best) } });
    }
  }
  return { feasibleSeen, filteredSeen, reasonsSeen };
}

describe('differential: js and wasm kernels agree on randomized clusters', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: 1500 nodes, 120 pods, full scan, first-failing-plugin reasons`, () => {
      const r = scenario(seed, 1500, 120, {}, false, false);
      expect(r.feasibleSeen).toBeGreaterThan(0); // the scenario exercises both outcomes
      expect(r.filteredSeen).toBeGreaterThan(0);
    });
  }
  it('seed 4: 3000 nodes, adaptive sampling windows, all reasons', () => {
    const r = scenario(4, 3000, 150, {}, true, true);
    expect(r.filteredSeen).toBeGreaterThan(0);
    // the generated cluster exercises every node-local filter and the main resource reasons
    const want =
      ReasonBit.NodeUnschedulable |
      ReasonBit.TaintToleration |
      ReasonBit.NodeAffinity |
      ReasonBit.NodePorts |
      (1 << (REASON_RESOURCE_BASE + 4));
    expect((r.reasonsSeen & want) >>> 0).toBe(want >>> 0);
  });
  it('seed 7: profiles with some node-local filters off (every subset), both reason modes', () => {
    // a pod's mask cycles through all 64 subsets; the nodes a disabled filter would reject are
    // feasible and scored identically by both kernels
    const first = scenario(7, 1200, 128, {}, false, false, (i) => i % 64);
    const all = scenario(8, 1200, 128, {}, true, true, (i) => (i * 5) % 64);
    expect(first.feasibleSeen).toBeGreaterThan(0);
    expect(all.filteredSeen).toBeGreaterThan(0);
    // with every filter off, every node is feasible
    const none = scenario(9, 300, 10, {}, false, true, () => ALL_FILTER_BITS);
    expect(none).toEqual({ feasibleSeen: 3000, filteredSeen: 0, reasonsSeen: 0 });
  });
  it('seed 5: MostAllocated with gpu + ephemeral-storage, custom weights', () => {
    scenario(
      5,
      800,
      100,
      {
        fit: {
          type: 'MostAllocated',
          resources: [
            { name: 'cpu', weight: 2 },
            { name: 'memory', weight: 1 },
            { name: 'nvidia.com/gpu', weight: 5 },
            { name: 'ephemeral-storage', weight: 1 },
          ],
        },
        weights: { ImageLocality: 3 },
      },
      false,
      false,
    );
  });
  it('seed 6: RequestedToCapacityRatio with a broken-linear shape, 3-resource balanced allocation', () => {
    scenario(
      6,
      800,
      100,
      {
        fit: {
          type: 'RequestedToCapacityRatio',
          resources: [
            { name: 'cpu', weight: 3 },
            { name: 'memory', weight: 1 },
          ],
          shape: [
            { utilization: 0, score: 10 },
            { utilization: 40, score: 3 },
            { utilization: 100, score: 6 },
          ],
        },
        balancedResources: [
          { name: 'cpu', weight: 1 },
          { name: 'memory', weight: 1 },
          { name: 'nvidia.com/gpu', weight: 1 },
        ],
      },
      true,
      false,
    );
  });
});

describe("four-node groups (the WASM filter's i32x4 path) agree with the JS kernel", () => {
  it('for every window start and size, consecutive and gapped scan orders, every affinity shape', () => {
    const zones = ['a', 'b', 'c'];
    const table = new NodeTable({ initialCapacity: 64 });
    for (let i = 0; i < 45; i++) {
      const labels: Record<string, string> = { zone: zones[i % 3], tier: String(i % 5), gen: String(i % 9) };
      if (i % 7 === 0) labels.gpu = 'yes';
      table.addNode(
        nodeOf(`n${i}`, {
          labels,
          capacity: { cpu: `${1 + (i % 4)}`, memory: `${2 + (i % 3)}Gi`, pods: i % 11 === 0 ? '0' : '20' },
          taints:
            i % 6 === 0
              ? [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]
              : i % 8 === 1
                ? [{ key: 'soft', value: 'y', effect: 'PreferNoSchedule' }]
                : undefined,
          unschedulable: i % 13 === 5,
        }),
      );
    }
    for (let i = 0; i < 45; i += 4)
      table.addPod(podOf({ node: `n${i}`, reqs: [{ cpu: `${500 + 100 * (i % 5)}m`, memory: '1Gi' }] }));
    const req = (...e: NodeSelectorRequirement[]) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: e }] },
      },
    });
    const r = [{ cpu: '700m', memory: '1Gi' }];
    const pods = [
      podOf({ reqs: r }),
      podOf({ reqs: r, nodeSelector: { zone: 'a' } }),
      podOf({ reqs: r, nodeSelector: { zone: 'b', tier: '2' } }),
      podOf({ reqs: r, affinity: req({ key: 'gen', operator: 'In', values: ['1', '2', '5'] }) }),
      podOf({ reqs: r, affinity: req({ key: 'gen', operator: 'In', values: ['1', '2', '3', '4'] }) }),
      podOf({ reqs: r, affinity: req({ key: 'gen', operator: 'In', values: ['1', '2', '3', '4', '5'] }) }), // > 4 values: node by node
      podOf({ reqs: r, affinity: req({ key: 'tier', operator: 'NotIn', values: ['0', '3'] }) }),
      podOf({ reqs: r, affinity: req({ key: 'gpu', operator: 'Exists' }) }),
      podOf({
        reqs: r,
        affinity: req(
          { key: 'gpu', operator: 'DoesNotExist' },
          { key: 'gen', operator: 'Gt', values: ['4'] },
        ),
      }),
      podOf({
        reqs: r,
        nodeSelector: { zone: 'c' },
        affinity: req({ key: 'tier', operator: 'Lt', values: ['3'] }),
      }),
      podOf({
        reqs: r,
        tolerations: [
          { key: 'dedicated', operator: 'Exists' },
          { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        ],
      }),
      podOf({ reqs: [{ cpu: '3500m' }] }),
      podOf({ reqs: r, hostPorts: [{ port: 80 }] }),
    ];
    const outJs = new KernelOutput(table),
      outWasm = new KernelOutput(table);
    let runs = 0;
    for (const phase of ['consecutive', 'gapped'] as const) {
      // removed nodes leave holes in the slot sequence, so some groups of four are not consecutive
      if (phase === 'gapped') for (const i of [3, 4, 10, 22, 23, 24, 40]) table.removeNode(`n${i}`);
      const n = table.size;
      for (const pod of pods) {
        const q = compilePod(table, pod, resolveScoring());
        for (let start = 0; start < n; start++) {
          for (const find of [1, 2, 3, 4, 5, 7, 9, 16, n]) {
            // maxNodes caps the nodes examined (1: exactly the node at start, a what-if check);
            // odd caps also take every reason (the kernel's general loop, as preemption's checks do)
            for (const maxNodes of find === 4 || find === n ? [0, 1, 3, 6] : [0]) {
              const opts: FilterScoreOptions = {
                start,
                numNodesToFind: find,
                maxNodes,
                allReasons: maxNodes % 2 === 1,
              };
              const pa = js.filterAndScore(table, q, outJs, opts);
              const pb = wasm.filterAndScore(table, q, outWasm, opts);
              compareRun(table, outJs, outWasm, pa, pb);
              if (maxNodes > 0) expect(pa).toBeLessThanOrEqual(maxNodes);
              runs++;
            }
          }
        }
      }
    }
    expect(runs).toBeGreaterThan(9000);
  });
});

describe('the cross-pod checks and scores (per-domain arrays, engine/crosspod.ts) agree between js and wasm', () => {
  it('every window start and size, random verdicts and sums, with nodes outside the rows', () => {
    const zones = ['a', 'b', 'c'];
    const table = new NodeTable({ initialCapacity: 64 });
    for (let i = 0; i < 45; i++)
      table.addNode(
        nodeOf(`n${i}`, {
          labels: { zone: zones[i % 3] },
          capacity: { cpu: `${1 + (i % 4)}`, memory: `${2 + (i % 3)}Gi`, pods: '20' },
          taints: i % 8 === 1 ? [{ key: 'soft', value: 'y', effect: 'PreferNoSchedule' }] : undefined,
          unschedulable: i % 13 === 5,
        }),
      );
    for (let i = 0; i < 45; i += 4)
      table.addPod(podOf({ node: `n${i}`, reqs: [{ cpu: `${500 + 100 * (i % 5)}m`, memory: '1Gi' }] }));
    // three rows: zone (3 domains, a few nodes without), rack (6), host (one per node, some without)
    const slots = Array.from({ length: 45 }, (_, i) => table.nodeIndex(`n${i}`));
    const zoneRow = table.registerTopologyKey('zone');
    const rackRow = table.registerTopologyKey('rack');
    const hostRow = table.registerTopologyKey('host');
    table.setTopologyDomains(
      zoneRow,
      slots,
      slots.map((_, i) => (i % 10 === 9 ? -1 : i % 3)),
    );
    table.setTopologyDomains(
      rackRow,
      slots,
      slots.map((_, i) => (i % 7 === 2 ? -1 : i % 6)),
    );
    table.setTopologyDomains(
      hostRow,
      slots,
      slots.map((_, i) => (i % 11 === 4 ? -1 : i)),
    );
    const rng = new Rng(21);
    const bits = (n: number, p: number) => Array.from({ length: n }, () => (rng.next() < p ? 1 : 0));
    const writer = new CrossPodWriter(table);
    const cases: CrossPodInputs[] = [];
    for (let c = 0; c < 12; c++)
      cases.push({
        checks: [
          { row: zoneRow, pass: bits(3, 0.7), missing: (c % 2) as 0 | 1 },
          ...(c % 3 === 0 ? [{ row: hostRow, pass: bits(45, 0.8), missing: 1 as const }] : []),
        ],
        ipa:
          c % 4 === 3
            ? undefined
            : {
                weight: 1 + (c % 3),
                keys: [
                  {
                    row: hostRow,
                    domains: 45,
                    ids: [1, 5, 9, 30],
                    sums: [-50, 20, -50, 7 * c],
                    // weighted counts the kernel multiplies (a hostname term's counts by node)
                    terms:
                      c % 2 === 0
                        ? [{ counts: Array.from({ length: 45 }, (_, i) => (i * c) % 4), weight: -3 }]
                        : undefined,
                  },
                  { row: zoneRow, domains: 3, ids: [0, 2], sums: [c, -3] },
                ],
              },
        pts:
          c % 4 === 1
            ? undefined
            : {
                weight: 2,
                requireAllKeys: c % 2 === 0,
                constraints: [
                  { row: zoneRow, maxSkew: 1 + (c % 3), domainCounts: [3, c, 1] },
                  { row: rackRow, maxSkew: 2, domainCounts: [0, 1, 2, 3, 4, 5].map((k) => (k * c) % 4) },
                  {
                    row: hostRow,
                    maxSkew: 1,
                    perNode: slots.filter((_, i) => i % 5 === 0).map((slot, k) => [{ slot }, k % 3] as const),
                  },
                ],
              },
      });
    const outJs = new KernelOutput(table),
      outWasm = new KernelOutput(table);
    const pod = podOf({ reqs: [{ cpu: '700m', memory: '1Gi' }] });
    let runs = 0;
    let crossFailed = 0;
    for (const input of cases) {
      const block = writer.write(input);
      const q = compilePod(table, pod, resolveScoring());
      applyCrossPod(table, q.addr, block);
      const n = table.size;
      for (let start = 0; start < n; start++)
        for (const find of [1, 3, 4, 5, 9, 16, n])
          for (const output of ['all', 'total'] as const) {
            const opts: FilterScoreOptions = { start, numNodesToFind: find, output };
            const pa = js.filterAndScore(table, q, outJs, opts);
            const pb = wasm.filterAndScore(table, q, outWasm, opts);
            if (output === 'all') compareRun(table, outJs, outWasm, pa, pb);
            else compareMode(table, outJs, outWasm, pa, pb, 'total');
            for (let s = 0; s < table.capacity; s++) if (outJs.reasons[s] === RB_CROSS_POD) crossFailed++;
            runs++;
          }
    }
    expect(runs).toBeGreaterThan(4000);
    expect(crossFailed).toBeGreaterThan(1000);
  });
});

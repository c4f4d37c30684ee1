import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { generateCluster, generatePods, type GeneratedCluster } from '../../../src/sim/cluster-gen.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { compilePod } from '../../../src/scheduler/engine/podquery.js';
import { JsKernel } from '../../../src/scheduler/engine/js.js';
import type { KernelOutput } from '../../../src/scheduler/engine/output.js';
import { NodeStatus } from '../../../src/scheduler/engine/types.js';
import {
  ReferenceScheduler,
  ShardedScheduler,
  ShardError,
  type MergeRecord,
  type ShardOptions,
} from '../../../src/scheduler/shard/index.js';
import { dataSegmentCount } from '../../../src/scheduler/shard/sharded.js';
import { wasmPath } from '../../../src/util/paths.js';
import type { Node, Pod } from '../../../src/api/types.js';

const open: ShardedScheduler[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

async function start(table: NodeTable, opts: ShardOptions) {
  const s = await ShardedScheduler.start(table, opts);
  open.push(s);
  return s;
}

function tableOf(
  cluster: GeneratedCluster,
  shared: boolean,
  initialCapacity = cluster.nodes.length,
): NodeTable {
  const t = new NodeTable({ initialCapacity, sharedMemory: shared });
  for (const n of cluster.nodes) t.addNode(n);
  for (const p of cluster.pods) t.addPod(p);
  return t;
}

const record = (): MergeRecord => ({ feasible: [], totals: [] });

describe('ShardedScheduler vs the single-thread full scan', () => {
  const cluster = generateCluster({ seed: 'shard-diff', nodes: 3000 });
  const pods = generatePods({ seed: 'shard-diff-pods', count: 250, cluster });

  // sharded over 2 and 3 windows, with the calling thread scanning window 0 and with workers only
  // (wakeSpin: the pre-wake protocol — a SEQ bump without a job — must not run a job twice or skip one)
  for (const [shards, useMainThread, wakeSpin] of [
    [2, true, 0],
    [3, true, 50_000],
    [2, false, 0],
    [3, false, 50_000],
  ] as const) {
    it(`${shards} shards${useMainThread ? '' : ' (workers only)'}${wakeSpin ? ' with pre-wake' : ''}: same feasible lists, totals and placements, pod by pod with assume`, async () => {
      const refTable = tableOf(cluster, false);
      const shTable = tableOf(cluster, true);
      const ref = new ReferenceScheduler(refTable, { seed: 42 });
      const sh = await start(shTable, { shards, seed: 42, useMainThread, wakeSpin });
      let placed = 0;
      let ties = 0;
      for (const pod of pods) {
        const ra = record();
        const rb = record();
        const a = ref.schedule(pod, ra);
        const b = sh.schedule(pod, rb);
        expect(b, pod.metadata.name).toBe(a);
        expect(rb.feasible).toEqual(ra.feasible);
        expect(rb.totals).toEqual(ra.totals);
        expect(sh.lastProcessed).toBe(shTable.size);
        if (a !== undefined) placed++;
        const max = Math.max(...ra.totals);
        if (ra.totals.filter((t) => t === max).length > 1) ties++;
      }
      // the scenario must exercise both outcomes and the tie-break
      expect(placed).toBeGreaterThan(200);
      expect(placed).toBeLessThan(pods.length);
      expect(ties).toBeGreaterThan(0);
      expect(shTable.podCount).toBe(refTable.podCount);
    }, 240_000);
  }

  it("the merge over one window reproduces the kernel's own NormalizeScore and totals (wasm and js kernels)", () => {
    const table = tableOf(cluster, false);
    for (const kernel of [undefined, new JsKernel()]) {
      const ref = new ReferenceScheduler(table, { seed: 1, kernel });
      for (const pod of pods.slice(0, 80)) {
        const r = record();
        ref.evaluate(compilePod(table, pod), r);
        const out = ref.out;
        expect(r.feasible).toEqual(Array.from(out.feasible.subarray(0, out.feasibleCount)));
        expect(r.totals).toEqual(r.feasible.map((s) => out.total[s]));
      }
    }
  });

  it('a window split that NormalizeScore notices: shard-local maxima differ from the global one', async () => {
    // one PreferNoSchedule taint on the first half of the scan order, two on the second half: shard 0's
    // local NormalizeScore (max 1) gives its nodes 0, the global one (max 2) gives them 50
    const nodes: Node[] = [];
    const soft = (k: string) => ({ key: k, value: 'x', effect: 'PreferNoSchedule' as const });
    for (let i = 0; i < 40; i++) {
      nodes.push({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `n${i}`, labels: {} },
        spec: { taints: i < 20 ? [soft('a')] : [soft('a'), soft('b')] },
        status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
      });
    }
    const mk = (shared: boolean) => {
      const t = new NodeTable({ sharedMemory: shared });
      for (const n of nodes) t.addNode(n);
      return t;
    };
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m', memory: '100Mi' } } }],
      },
    };
    const refTable = mk(false);
    const shTable = mk(true);
    const ref = new ReferenceScheduler(refTable, { seed: 3 });
    const sh = await start(shTable, { shards: 2, seed: 3 });
    const ra = record();
    const rb = record();
    ref.evaluate(compilePod(refTable, pod), ra);
    sh.evaluate(compilePod(shTable, pod), rb);
    expect(rb.totals).toEqual(ra.totals);
    expect(rb.feasible).toHaveLength(40);
    // the scenario really separates local from global: every node shard 0 examined has one
    // untolerated soft taint (local maximum 1 would normalize n0 to 0), the global maximum is 2
    // (n0 → 100 - 50), and the merged total of n0 carries the global 50 × weight 3
    const shard0 = (sh as unknown as { outputs: KernelOutput[] }).outputs[0];
    const n0 = shTable.nodeIndex('n0');
    const seen0 = Array.from(shard0.feasible.subarray(0, shard0.feasibleCount));
    expect(seen0).toContain(n0);
    expect(new Set(seen0.map((s) => shard0.raw(0)[s]))).toEqual(new Set([1]));
    // identical nodes otherwise: n0 (1 soft taint → 50) scores 3 × 50 above n39 (2 → 0)
    expect(
      rb.totals[rb.feasible.indexOf(n0)] - rb.totals[rb.feasible.indexOf(shTable.nodeIndex('n39'))],
    ).toBe(3 * 50);
  });

  it('keeps working when the table grows (capacity doubling) between pods', async () => {
    const small = generateCluster({ seed: 'shard-grow', nodes: 600 });
    const first: GeneratedCluster = {
      ...small,
      nodes: small.nodes.slice(0, 50),
      pods: small.pods.filter((p) =>
        small.nodes.slice(0, 50).some((n) => n.metadata.name === p.spec?.nodeName),
      ),
    };
    const refTable = tableOf(first, false, 64);
    const shTable = tableOf(first, true, 64);
    const ref = new ReferenceScheduler(refTable, { seed: 5 });
    const sh = await start(shTable, { shards: 3, seed: 5 });
    const morePods = generatePods({ seed: 'shard-grow-pods', count: 60, cluster: small });
    let added = 50;
    for (let i = 0; i < morePods.length; i++) {
      if (i % 10 === 0 && added < small.nodes.length) {
        for (const n of small.nodes.slice(added, added + 110)) {
          refTable.addNode(n);
          shTable.addNode(n);
        }
        added += 110;
      }
      expect(sh.schedule(morePods[i])).toBe(ref.schedule(morePods[i]));
      expect(sh.lastProcessed).toBe(shTable.size);
    }
    expect(shTable.capacity).toBeGreaterThan(64);
  });

  it('reports every node examined exactly once across the windows', async () => {
    const table = tableOf(cluster, true);
    const sh = await start(table, { shards: 3, seed: 1 });
    sh.evaluate(compilePod(table, pods[0]));
    // every live node has a status in exactly one shard output (the windows are a partition)
    const outs = (sh as unknown as { outputs: { status: Uint8Array }[] }).outputs;
    let seen = 0;
    for (let s = 0; s < table.highWater; s++) {
      const c = outs.filter((o) => o.status[s] !== NodeStatus.NotEvaluated).length;
      expect(c).toBeLessThanOrEqual(1);
      seen += c;
    }
    expect(seen).toBe(table.size);
  });
});

describe('errors', () => {
  it('refuses a table whose memory is not shared, naming the option', async () => {
    const t = new NodeTable();
    await expect(ShardedScheduler.start(t, { shards: 2 })).rejects.toThrow(/sharedMemory: true/);
    await expect(ShardedScheduler.start(t, { shards: 2 })).rejects.toBeInstanceOf(ShardError);
  });

  it('refuses a non-positive shard count', async () => {
    await expect(
      ShardedScheduler.start(new NodeTable({ sharedMemory: true }), { shards: 0 }),
    ).rejects.toThrow(/shards must be a positive integer/);
  });

  it('the shared build keeps no static data in linear memory; the data-section reader sees a real one', () => {
    expect(dataSegmentCount(readFileSync(wasmPath('scheduler_shared')))).toBe(0);
    // (module (memory 1) (data (i32.const 0) "*"))
    const withData = Uint8Array.from([
      0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 0, 1, 11, 7, 1, 0, 0x41, 0, 0x0b, 1, 42,
    ]);
    expect(() => new WebAssembly.Module(withData)).not.toThrow();
    expect(dataSegmentCount(withData)).toBe(1);
  });
});

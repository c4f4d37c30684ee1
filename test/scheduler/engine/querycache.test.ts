// QueryCache (engine/querycache.ts) against compiling every time: over more templates than it
// keeps, found by pod object and by template, with evictions, the cached query makes the kernel
// write exactly what a fresh compile of the same pod makes it write.
import { describe, expect, it } from 'vitest';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { NodeTable } from '../../../src/scheduler/engine/table.js';
import { compilePod, QueryArena, type PodQuery } from '../../../src/scheduler/engine/podquery.js';
import { QueryCache } from '../../../src/scheduler/engine/querycache.js';
import { resolveScoring } from '../../../src/scheduler/engine/scoring.js';
import { JsKernel } from '../../../src/scheduler/engine/js.js';
import { KernelOutput } from '../../../src/scheduler/engine/output.js';
import { Rng } from '../../../src/util/rng.js';

describe('QueryCache', () => {
  it('a kept query filters and scores as a fresh compile does, across evictions', () => {
    const cluster = generateCluster({ seed: 5, nodes: 60 });
    const table = new NodeTable({ initialCapacity: 60 });
    for (const n of cluster.nodes) table.addNode(n);
    for (const p of cluster.pods) table.addPod(p);
    const pods = generatePods({ seed: 6, count: 40, cluster });
    const scoring = resolveScoring();
    const cache = new QueryCache(table, 6);
    const kernel = new JsKernel();
    const out = new KernelOutput(table);
    const own = new QueryArena(table, 256);
    const run = (q: PodQuery) => {
      kernel.filterAndScore(table, q, out, { output: 'all' });
      return { status: [...out.status.slice(0, table.size)], total: [...out.total.slice(0, table.size)] };
    };
    const rng = new Rng(7);
    let compared = 0;
    for (let step = 0; step < 400; step++) {
      // a pod object seen before, or a copy of it (found by template, not by object)
      const base = pods[rng.int(rng.next() < 0.5 ? 8 : pods.length)];
      const pod = rng.next() < 0.5 ? base : { ...base, metadata: { ...base.metadata } };
      const cached = run(cache.compile(pod, scoring));
      const fresh = run(compilePod(table, pod, scoring, own));
      expect(cached, `step ${step}: ${pod.metadata.name}`).toEqual(fresh);
      compared++;
    }
    expect(compared).toBe(400);
    expect(cache.hits).toBeGreaterThan(100);
    expect(cache.misses).toBeGreaterThan(40); // evictions: more templates than the 6 kept
  });
});

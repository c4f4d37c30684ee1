#!/usr/bin/env node
// Plan cost against replicas placed, for A/B runs of two builds on one machine in one sitting:
//   node scripts/plan-growth.mjs [NODES] [REPLICAS,…] [DIST_ROOT]
// plans a zone-spread Deployment (DoNotSchedule, maxSkew 1) with preferred hostname anti-affinity
// to itself on a seeded generated cluster of NODES nodes (the cluster and shape of bench/capacity.ts),
// once per replica count, and prints wall and CPU time per plan and the CPU ratio to the previous
// count (≈ 2 per doubling when linear).
// DIST_ROOT (default: this checkout) is a checkout whose `npm run build` output to load, e.g. a
// `git worktree` of an older commit. `kubesim bench capacity` measures the same shape on this build.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const nodes = Number(process.argv[2] ?? 547);
const counts = (process.argv[3] ?? '500,1000,2000,4000').split(',').map(Number);
const here = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(process.argv[4] ?? here);
const load = (p) => import(pathToFileURL(path.join(root, 'dist/src', p)).href);
const { planCapacity } = await load('capacity/planner.js');
// the cluster and the shape of `kubesim bench capacity`'s growth rows, from this checkout's build
const { clusterOf, spreadShape: shape } = await import(
  pathToFileURL(path.join(here, 'dist/bench/capacity.js')).href
);
const cluster = clusterOf(nodes, 1).file;
let prev;
for (const n of counts) {
  const t = performance.now();
  const c0 = process.cpuUsage();
  const rep = planCapacity(cluster, [shape], { maxReplicas: n, kernel: 'wasm' });
  const wall = performance.now() - t;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1000;
  const ratio = prev ? `  ×${(cpu / prev).toFixed(2)} cpu` : '';
  console.log(
    `${nodes} nodes, ${n} replicas: fits ${rep.shapes[0].fits}, wall ${wall.toFixed(0)} ms, cpu ${cpu.toFixed(0)} ms${ratio}`,
  );
  prev = cpu;
}

#!/usr/bin/env node
// Plan cost against replicas placed, for A/B runs of two builds on one machine in one sitting:
//   node scripts/plan-growth.mjs [NODES] [REPLICAS,…] [DIST_ROOT]
// plans a zone-spread Deployment (DoNotSchedule, maxSkew 1) with preferred hostname anti-affinity
// to itself on a seeded generated cluster of NODES nodes, once per replica count, and prints wall
// and CPU time per plan and the CPU ratio to the previous count (≈ 2 per doubling when linear).
// DIST_ROOT (default: this checkout) is a checkout whose `npm run build` output to load, e.g. a
// `git worktree` of an older commit. `kubesim bench capacity` measures the same shape on this build.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const nodes = Number(process.argv[2] ?? 547);
const counts = (process.argv[3] ?? '500,1000,2000,4000').split(',').map(Number);
const root = path.resolve(process.argv[4] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const load = (p) => import(pathToFileURL(path.join(root, 'dist/src', p)).href);
const { generateCluster } = await load('sim/cluster-gen.js');
const { planCapacity } = await load('capacity/planner.js');

const g = generateCluster({ seed: 1, nodes });
const cluster = {
  sources: new Map(),
  nodes: g.nodes,
  boundPods: g.pods.filter((p) => p.spec.nodeName),
  pendingPods: [],
  services: [],
  replicaSets: [],
  others: [],
  namespaces: [],
};
const labels = { app: 'web' };
const shape = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels },
  spec: {
    containers: [{ name: 'c', image: 'app:1', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: labels },
      },
    ],
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: labels },
            },
          },
        ],
      },
    },
  },
};
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

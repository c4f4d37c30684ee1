#!/usr/bin/env node
// Writes a scale-envelope scenario for `kubesim simulate` (docs/sim.md format), after `npm run build`:
//   node scripts/envelope-scenario.mjs NODES SERVICES REPLICAS OUT.yaml [DURATION]
// NODES nodes of 32 cores / 128Gi in 3 zones; SERVICES Deployments of REPLICAS pods (10m CPU,
// 16Mi) each behind a Service of its own, spread over 100 namespaces, all created at t = 0
// (src/sim/envelope.ts). The workloads go to OUT-workloads.json next to OUT.yaml. Kubernetes'
// official envelope is `5000 10000 15` (150,000 pods); BENCHMARKS.md also uses `500 1000 15` (a tenth).
import fs from 'node:fs';
import path from 'node:path';
import { envelopeScenarioText, envelopeWorkloads } from '../dist/src/sim/envelope.js';

const [nodes, services, replicas] = process.argv.slice(2, 5).map(Number);
const out = process.argv[5];
const duration = process.argv[6] ?? '6m';
if (!(nodes > 0 && services > 0 && replicas > 0) || !out?.endsWith('.yaml')) {
  console.error('usage: node scripts/envelope-scenario.mjs NODES SERVICES REPLICAS OUT.yaml [DURATION]');
  process.exit(2);
}
const workloads = path.basename(out).replace(/\.yaml$/, '-workloads.json');
fs.writeFileSync(
  path.join(path.dirname(out), workloads),
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items: envelopeWorkloads(services, replicas) }),
);
fs.writeFileSync(out, envelopeScenarioText({ nodes, services, replicas, duration }, workloads));

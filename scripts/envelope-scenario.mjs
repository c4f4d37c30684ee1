#!/usr/bin/env node
// Writes a scale-envelope scenario for `kubesim simulate` (docs/sim.md format):
//   node scripts/envelope-scenario.mjs NODES SERVICES REPLICAS OUT.yaml [DURATION]
// NODES nodes of 32 cores / 128Gi in 3 zones; SERVICES Deployments of REPLICAS pods (10m CPU,
// 16Mi) each behind a Service of its own, spread over 100 namespaces, all created at t = 0. The
// workloads go to OUT-workloads.json next to OUT.yaml. Kubernetes' official envelope is
// `5000 10000 15` (150,000 pods); BENCHMARKS.md also uses `500 1000 15` (a tenth).
import fs from 'node:fs';
import path from 'node:path';

const [nodes, services, replicas] = process.argv.slice(2, 5).map(Number);
const out = process.argv[5];
const duration = process.argv[6] ?? '6m';
if (!(nodes > 0 && services > 0 && replicas > 0) || !out?.endsWith('.yaml')) {
  console.error('usage: node scripts/envelope-scenario.mjs NODES SERVICES REPLICAS OUT.yaml [DURATION]');
  process.exit(2);
}
const items = [];
for (let i = 0; i < Math.min(100, services); i++)
  items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } });
for (let i = 0; i < services; i++) {
  const name = `svc-${String(i).padStart(5, '0')}`;
  const namespace = `ns-${i % 100}`;
  const labels = { app: name };
  items.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'c',
              image: 'example/app:1',
              ports: [{ containerPort: 8080 }],
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
            },
          ],
        },
      },
    },
  });
  items.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
  });
}
const workloads = path.basename(out).replace(/\.yaml$/, '-workloads.json');
fs.writeFileSync(
  path.join(path.dirname(out), workloads),
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
);
fs.writeFileSync(
  out,
  `name: envelope-${nodes}
description: ${nodes} nodes, ${services} Services each in front of a Deployment of ${replicas} replicas (${services * replicas} pods)
seed: 1
duration: ${duration}
settings:
  # the envelope measures the control plane, not client-go's default throttling: at kube-controller-manager's
  # default 20 QPS (--kube-api-qps) the ReplicaSet controller alone would take over 2 virtual hours to
  # create 150,000 pods; large clusters raise these limits
  clientRateLimits: false
cluster:
  pools:
    - { name: worker, count: ${nodes}, cpu: "32", memory: 128Gi, pods: 110, zones: [zone-a, zone-b, zone-c] }
workloads:
  - file: ${workloads}
`,
);

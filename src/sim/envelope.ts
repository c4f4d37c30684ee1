/**
 * Kubernetes' scalability envelope as a scenario (5,000 nodes, 150,000 pods, 10,000 Services
 * with EndpointSlices; kubernetes/community sig-scalability/configs-and-limits/thresholds.md),
 * at any fraction of it: NODES nodes of 32 cores / 128Gi in 3 zones; SERVICES Deployments of
 * REPLICAS pods (10m CPU, 16Mi) each behind a Service of its own, spread over 100 namespaces,
 * all created at t = 0. Written by scripts/envelope-scenario.mjs for `kubesim simulate`, run by
 * `kubesim bench sim` at reduced sizes.
 */
import type { KubeObject } from '../api/types.js';

export interface EnvelopeShape {
  nodes: number;
  services: number;
  replicas: number;
  /** the scenario's duration as the scenario format writes it ("6m") */
  duration: string;
}

/** the Namespaces, Deployments and Services of the envelope (the scenario's workloads file) */
export function envelopeWorkloads(services: number, replicas: number): KubeObject[] {
  const items: KubeObject[] = [];
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
    } as KubeObject);
    items.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
    } as KubeObject);
  }
  return items;
}

/** the scenario file's text; its workloads are in `workloadsFile` (envelopeWorkloads as a List) */
export function envelopeScenarioText(s: EnvelopeShape, workloadsFile: string): string {
  return `name: envelope-${s.nodes}
description: ${s.nodes} nodes, ${s.services} Services each in front of a Deployment of ${s.replicas} replicas (${s.services * s.replicas} pods)
seed: 1
duration: ${s.duration}
settings:
  # the envelope measures the control plane, not client-go's default throttling: at kube-controller-manager's
  # default 20 QPS (--kube-api-qps) the ReplicaSet controller alone would take over 2 virtual hours to
  # create 150,000 pods; large clusters raise these limits
  clientRateLimits: false
cluster:
  pools:
    - { name: worker, count: ${s.nodes}, cpu: "32", memory: 128Gi, pods: 110, zones: [zone-a, zone-b, zone-c] }
workloads:
  - file: ${workloadsFile}
`;
}

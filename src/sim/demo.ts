/**
 * The built-in demo scenario (`kubesim demo`): a three-zone cluster at realistic scale with several
 * Deployments behind Services, and a timeline that exercises the control plane's classic stories —
 * a scale-up, a rolling update, a single node failure (evicted only after 40 s + 300 s), a zone
 * outage (NoExecute tainting rate-limited per zone), and the zone's recovery.
 */
import { defaultControllerWorkers } from './scenario-knobs.js';
import type { Deployment, KubeObject, Service } from '../api/types.js';
import { LimitError, LIMITS } from '../util/limits.js';
import { DEFAULT_COMPACTION_INTERVAL_MS } from './scenario.js';
import type { Scenario, TimelineEntry, Action } from './scenario-types.js';
import { describeAction } from './scenario-timeline.js';

export interface DemoOptions {
  nodes?: number;
  seed?: number;
  /** virtual duration in ms (default 15 min) */
  durationMs?: number;
  scheduler?: 'real' | 'standin';
}

function deployment(
  name: string,
  replicas: number,
  image: string,
  cpu: string,
  memory: string,
  opts: {
    probe?: boolean;
    surge?: string | number;
    unavailable?: string | number;
    zoneSpread?: boolean;
  } = {},
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop', labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: opts.surge ?? '25%', maxUnavailable: opts.unavailable ?? '25%' },
      },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name,
              image,
              ports: [{ name: 'http', containerPort: 8080 }],
              resources: { requests: { cpu, memory } },
              ...(opts.probe
                ? {
                    readinessProbe: {
                      httpGet: { path: '/healthz', port: 8080 },
                      initialDelaySeconds: 5,
                      periodSeconds: 10,
                    },
                  }
                : {}),
            },
          ],
        },
      },
    },
  };
}

function service(name: string): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop' },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
}

/** The demo scenario for `nodes` nodes (pods scale with the cluster: about 1.3 per node, 1.5 after the scale-up). */
export function demoScenario(o: DemoOptions = {}): Scenario {
  const nodes = o.nodes ?? 3000;
  if (!Number.isInteger(nodes) || nodes < 3 || nodes > LIMITS.nodes)
    throw new LimitError(`demo: --nodes must be an integer from 3 to ${LIMITS.nodes}, got ${o.nodes}`);
  const per = (f: number) => Math.max(1, Math.round(nodes * f));
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const general = Math.round(nodes * 0.8);
  const workloads: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } as KubeObject,
    deployment('frontend', per(0.4), 'shop/frontend:1.0', '500m', '512Mi', { probe: true }),
    deployment('checkout', per(0.2), 'shop/checkout:3.2', '1', '1Gi', {
      probe: true,
      surge: '10%',
      unavailable: 0,
    }),
    deployment('catalog', per(0.3), 'shop/catalog:2.7', '250m', '256Mi'),
    deployment('search', per(0.15), 'shop/search:5.1', '2', '4Gi', { probe: true }),
    deployment('worker', per(0.25), 'shop/worker:1.9', '1', '2Gi'),
    service('frontend'),
    service('checkout'),
    service('catalog'),
    service('search'),
  ];
  const at = (s: number, action: Action): TimelineEntry => ({
    atMs: s * 1000,
    action,
    label: describeAction(action),
  });
  const timeline: TimelineEntry[] = [
    at(45, { kind: 'scale', deployment: 'shop/catalog', replicas: per(0.5) }),
    at(90, { kind: 'rollout', deployment: 'shop/frontend', image: 'shop/frontend:1.1' }),
    at(240, { kind: 'nodeDown', nodes: ['general-0007'] }),
    at(360, { kind: 'zoneOutage', zone: 'zone-c' }),
    at(720, { kind: 'zoneRecover', zone: 'zone-c' }),
  ];
  return {
    name: 'demo',
    description: `built-in demo: ${nodes} nodes in 3 zones, 5 deployments, scale-up, rolling update, node failure, zone outage and recovery`,
    seed: o.seed ?? 1,
    durationMs: o.durationMs ?? 15 * 60_000,
    pools: [
      {
        name: 'general',
        count: general,
        cpu: '8',
        memory: '32Gi',
        pods: 110,
        zones,
        labels: {},
        taints: [],
        images: [],
      },
      {
        name: 'highmem',
        count: nodes - general,
        cpu: '16',
        memory: '128Gi',
        pods: 110,
        zones,
        labels: { 'node.kubernetes.io/class': 'highmem' },
        taints: [],
        images: [],
      },
    ],
    snapshotNodes: [],
    snapshotObjects: [],
    workloads,
    timeline,
    settings: {
      scheduler: o.scheduler ?? 'real',
      watchLatencyMs: 0,
      watchJitterMs: 0,
      maxRequestsInflight: 400,
      maxMutatingInflight: 200,
      leaderElection: false,
      sampleEveryMs: 10_000,
      schedulerCycleMs: 2,
      nodeMonitorGracePeriodMs: 40_000,
      evictionRate: 0.1,
      latencies: {},
      plugins: [],
      clientRateLimits: true,
      compactionIntervalMs: DEFAULT_COMPACTION_INTERVAL_MS,
      controllers: defaultControllerWorkers(),
    },
    source: 'demo',
  };
}

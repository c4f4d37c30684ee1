/**
 * The scenario as parsed (docs/sim.md): the types scenario.ts produces and the engine, the replay
 * recorder, the demo and the experiments read. A module of its own so that readers of a parsed
 * scenario need not import the parser.
 */
import type { NodeDevices } from '../api/resource-slices.js';
import type { KubeObject, Node, Taint } from '../api/types.js';
import type { AutoscalerConfig } from '../autoscaler/config.js';
import type { KubeletEvictionSettings, RunRule, UsageRule } from '../kubelet/settings.js';
import type { SchedulerConfig } from '../scheduler/config.js';
import type { MetricCurve } from './metric-curves.js';
import type { Knobs } from './scenario-knobs.js';

export interface NodePool {
  name: string;
  count: number;
  cpu: string;
  memory: string;
  pods: number;
  zones: string[];
  region?: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** images already present on these nodes (skip the pull) */
  images: string[];
  /** DRA devices each node's drivers publish as ResourceSlices (api/resource-slices.ts) */
  devices?: NodeDevices[];
}

export type Action =
  | { kind: 'scale'; deployment: string; replicas: number }
  | { kind: 'rollout'; deployment: string; image: string; container?: string }
  | { kind: 'rollback'; deployment: string; toRevision?: number }
  | { kind: 'nodeDown'; nodes: string[]; count?: number; pool?: string }
  | { kind: 'nodeUp'; nodes: string[] }
  | { kind: 'deleteNode'; nodes: string[] }
  | { kind: 'zoneOutage'; zone: string }
  | { kind: 'zoneRecover'; zone: string }
  | { kind: 'burst'; count: number; namespace: string; namePrefix: string; template: KubeObject }
  | { kind: 'apply'; objects: KubeObject[] }
  | { kind: 'delete'; resource: string; namespace?: string; name: string }
  | { kind: 'killLeader'; component: 'controller-manager' | 'scheduler' }
  | { kind: 'drain'; node: string; timeoutMs: number };

export interface TimelineEntry {
  atMs: number;
  action: Action;
  /** the entry as written, for reports */
  label: string;
}

export interface Settings {
  scheduler: 'standin' | 'real';
  watchLatencyMs: number;
  watchJitterMs: number;
  maxRequestsInflight: number;
  maxMutatingInflight: number;
  /** run two controller-manager and two scheduler instances with leader election */
  leaderElection: boolean;
  sampleEveryMs: number;
  schedulerCycleMs: number;
  nodeMonitorGracePeriodMs: number;
  evictionRate: number;
  latencies: Record<string, { medianMs: number; sigma: number }>;
  /**
   * client-go's client-side QPS/burst per client with the components' defaults (client/server-client.ts
   * CLIENT_RATE_LIMITS); false: none (default true)
   */
  clientRateLimits: boolean;
  /**
   * settings.compactionInterval: kube-apiserver's --etcd-compaction-interval (default 5m; 0: never):
   * every interval the store is compacted to the revision seen one interval before
   */
  compactionIntervalMs: number;
  /** settings.schedulerConfig: the KubeSchedulerConfiguration the real scheduler runs with */
  schedulerConfig?: SchedulerConfig;
  /**
   * settings.plugins: user plugins as `path[:weight]` (path resolved against the scenario's folder),
   * added to every profile like `--plugin`; loaded contained by {@link loadScenarioPlugins}
   */
  plugins: string[];
  /** settings.controllers: each controller's worker count (scenario-knobs.ts, v1.34 defaults) */
  controllers: Knobs['controllers'];
  /** settings.apiLatency: the ApiServer's request latency model (api/request-latency.ts) */
  apiLatency?: Knobs['apiLatency'];
  /**
   * settings.kubelet: the kubelet's eviction manager (eviction-manager.ts); set when the scenario
   * gives settings.kubelet or `usage:` rules, else node-pressure eviction is off
   */
  kubelet?: KubeletEvictionSettings;
  /**
   * settings.draPrepare: the kubelet's NodePrepareResources latency per DRA driver (`default` for
   * any other driver; kubelet/dra.ts DEFAULT_PREPARE_LATENCY otherwise)
   */
  draPrepare?: Record<string, { medianMs: number; sigma: number }>;
}

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  durationMs: number;
  pools: NodePool[];
  /** nodes from a snapshot file (used as-is) */
  snapshotNodes: Node[];
  /** other objects from the snapshot (pods bound to nodes, …) */
  snapshotObjects: KubeObject[];
  workloads: KubeObject[];
  timeline: TimelineEntry[];
  settings: Settings;
  source: string;
  /** run-to-completion pods (Jobs): how long they run and how likely they fail, first match wins */
  runs?: RunRule[];
  /** metric curves the HorizontalPodAutoscaler reads (docs/controllers-batch.md) */
  metrics?: MetricCurve[];
  /** what pods use, as the kubelet's eviction manager observes it (src/kubelet/settings.ts) */
  usage?: UsageRule[];
  /** the cluster-autoscaler model and its node groups (cluster-autoscaler.ts) */
  autoscaler?: AutoscalerConfig;
}

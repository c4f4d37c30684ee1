/**
 * Seeded synthetic clusters for benchmarks, differential tests and what-if runs: node pools with
 * sizes, zones, labels, taints and image caches, the pods already running on them, and pending
 * pods with a realistic mix of requests, selectors, affinities, tolerations, host ports and images.
 * Every random choice comes from one {@link Rng} seeded by `seed`, so a seed fixes the cluster.
 *
 * ```
 * const { nodes, pods } = generateCluster({ seed: 7, nodes: 5000 });
 * const pending = generatePods({ seed: 8, count: 1000, cluster });
 * ```
 */
import { registeredNodeInfo } from '../api/kinds.js';
import { wellKnownNodeLabels } from '../api/topology.js';
import type { Container, Node, NodeSelectorRequirement, Pod, Taint, Toleration } from '../api/types.js';
import { Rng } from '../util/rng.js';

const Gi = 1024 ** 3;
const Mi = 1024 ** 2;

/** One node pool: a machine shape, a share of the cluster, its labels and taints. */
export interface NodePoolSpec {
  name: string;
  /** relative share of the nodes */
  weight: number;
  cpu: number; // cores
  memoryGi: number;
  pods?: number; // max pods, default 110
  ephemeralGi?: number; // default 100
  gpus?: number; // nvidia.com/gpu
  instanceType?: string;
  taints?: Taint[];
  labels?: Record<string, string>;
}

/** The default pools: three general sizes, high-memory, a tainted GPU pool and a tainted spot pool. */
export const DEFAULT_POOLS: NodePoolSpec[] = [
  { name: 'general-small', weight: 30, cpu: 4, memoryGi: 16, instanceType: 'm5.xlarge' },
  { name: 'general-medium', weight: 30, cpu: 8, memoryGi: 32, instanceType: 'm5.2xlarge' },
  { name: 'general-large', weight: 15, cpu: 16, memoryGi: 64, instanceType: 'm5.4xlarge' },
  { name: 'highmem', weight: 10, cpu: 8, memoryGi: 64, instanceType: 'r5.2xlarge' },
  {
    name: 'gpu',
    weight: 5,
    cpu: 32,
    memoryGi: 128,
    gpus: 4,
    instanceType: 'p3.8xlarge',
    taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
  },
  {
    name: 'spot',
    weight: 10,
    cpu: 8,
    memoryGi: 32,
    instanceType: 'm5.2xlarge-spot',
    taints: [{ key: 'cloud.example.com/spot', value: 'true', effect: 'NoSchedule' }],
    labels: { 'cloud.example.com/spot': 'true' },
  },
];

export interface ClusterGenOptions {
  seed?: number | string;
  /** number of nodes */
  nodes: number;
  /** zones (topology.kubernetes.io/zone), default 3 */
  zones?: number;
  region?: string;
  pools?: NodePoolSpec[];
  /** mean fraction of each node's cpu/memory already requested by running pods (0..0.95), default 0.5 */
  utilization?: number;
  /** distinct images in the registry, default 80 */
  imageCatalog?: number;
  /** images cached per node, default 25 */
  imagesPerNode?: number;
  /** fraction of nodes cordoned (spec.unschedulable), default 0.01 */
  unschedulableFraction?: number;
  /** fraction of nodes with a PreferNoSchedule taint, default 0.05 */
  preferNoScheduleFraction?: number;
  /** fraction of nodes whose Ready condition is False (with the node lifecycle controller's taint), default 0.01 */
  notReadyFraction?: number;
}

export interface GeneratedCluster {
  nodes: Node[];
  /** pods already bound (spec.nodeName set, phase Running) */
  pods: Pod[];
  /** the image names pods may use (pod spelling, without tag for ~half of them) */
  images: string[];
  zones: string[];
  pools: NodePoolSpec[];
}

interface CatalogImage {
  repo: string;
  tag: string;
  sizeBytes: number;
}

function catalog(rng: Rng, n: number): CatalogImage[] {
  const out: CatalogImage[] = [];
  for (let i = 0; i < n; i++) {
    // sizes from 5Mi to ~2Gi, log-uniform: most images are small, a few are huge (ML, JVM)
    const sizeBytes = Math.round(5 * Mi * Math.exp(rng.next() * Math.log(400)));
    out.push({
      repo: `registry.example.com/team${i % 12}/app${i}`,
      tag: i % 2 === 0 ? 'latest' : `v${1 + (i % 5)}.${i % 7}`,
      sizeBytes,
    });
  }
  return out;
}

function pickWeighted<T extends { weight: number }>(rng: Rng, items: readonly T[]): T {
  const total = items.reduce((s, x) => s + x.weight, 0);
  let r = rng.next() * total;
  for (const x of items) {
    r -= x.weight;
    if (r < 0) return x;
  }
  return items[items.length - 1];
}

/** Generates nodes and the pods already running on them. */
export function generateCluster(opts: ClusterGenOptions): GeneratedCluster {
  if (!Number.isInteger(opts.nodes) || opts.nodes < 0)
    throw new TypeError(`generateCluster: nodes must be a non-negative integer, got ${opts.nodes}`);
  const rng = new Rng(opts.seed ?? 1);
  const nodeRng = rng.fork('nodes');
  const podRng = rng.fork('pods');
  const pools = opts.pools ?? DEFAULT_POOLS;
  const region = opts.region ?? 'region-1';
  const zones = Array.from({ length: opts.zones ?? 3 }, (_, i) => `${region}${String.fromCharCode(97 + i)}`);
  const images = catalog(rng.fork('images'), opts.imageCatalog ?? 80);
  const imagesPerNode = Math.min(opts.imagesPerNode ?? 25, images.length);
  const utilization = Math.min(0.95, Math.max(0, opts.utilization ?? 0.5));
  const nodes: Node[] = [];
  const pods: Pod[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const pool = pickWeighted(nodeRng, pools);
    const zone = zones[i % zones.length];
    const name = `node-${String(i).padStart(5, '0')}`;
    const taints: Taint[] = [...(pool.taints ?? [])];
    if (nodeRng.next() < (opts.preferNoScheduleFraction ?? 0.05))
      taints.push({ key: 'example.com/maintenance-soon', value: 'true', effect: 'PreferNoSchedule' });
    const notReady = nodeRng.next() < (opts.notReadyFraction ?? 0.01);
    if (notReady) taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    const nodeImages = nodeRng.shuffle(images.slice()).slice(0, imagesPerNode);
    const alloc: Record<string, string> = {
      cpu: `${pool.cpu * 1000 - 100}m`, // kubelet reserves a little
      memory: `${pool.memoryGi * 1024 - 512}Mi`,
      'ephemeral-storage': `${pool.ephemeralGi ?? 100}Gi`,
      pods: String(pool.pods ?? 110),
    };
    if (pool.gpus) alloc['nvidia.com/gpu'] = String(pool.gpus);
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          ...wellKnownNodeLabels({
            name,
            arch: nodeRng.next() < 0.15 ? 'arm64' : 'amd64',
            region,
            zone,
            instanceType: pool.instanceType ?? pool.name,
          }),
          'example.com/pool': pool.name,
          'example.com/generation': String(1 + nodeRng.int(5)),
          ...(pool.labels ?? {}),
        },
      },
      spec: {
        unschedulable: nodeRng.next() < (opts.unschedulableFraction ?? 0.01) || undefined,
        taints: taints.length ? taints : undefined,
      },
      status: {
        capacity: alloc,
        allocatable: alloc,
        conditions: [{ type: 'Ready', status: notReady ? 'False' : 'True' }],
        images: nodeImages.map((im) => ({
          names: [
            `${im.repo}:${im.tag}`,
            `${im.repo}@sha256:${((im.sizeBytes * 2654435761) >>> 0).toString(16).padStart(8, '0')}`,
          ],
          sizeBytes: im.sizeBytes,
        })),
      },
    });
    const made = nodes[nodes.length - 1]!;
    made.status!.nodeInfo = registeredNodeInfo(made.metadata.labels);
    // running pods up to a per-node utilization drawn around the mean
    const target = Math.min(
      0.98,
      Math.max(0, utilization + (podRng.next() - 0.5) * 0.6 * Math.min(utilization, 1 - utilization) * 2),
    );
    let cpuLeft = pool.cpu * 1000 * target;
    let memLeft = pool.memoryGi * Gi * target;
    let k = 0;
    while (cpuLeft > 100 && memLeft > 64 * Mi && k < (pool.pods ?? 110) - 5) {
      const cpu = Math.min(cpuLeft, 100 * (1 + podRng.int(20)));
      const mem = Math.min(memLeft, 64 * Mi * (1 + podRng.int(32)));
      const im = podRng.pick(nodeImages);
      pods.push(
        runningPod(
          `${name}-run-${k}`,
          name,
          Math.round(cpu),
          Math.round(mem / Mi),
          `${im.repo}:${im.tag}`,
          podRng.next() < 0.02 ? 8080 + podRng.int(4) : 0,
        ),
      );
      cpuLeft -= cpu;
      memLeft -= mem;
      k++;
    }
  }
  const podImages = images.map((im) => (im.tag === 'latest' ? im.repo : `${im.repo}:${im.tag}`));
  return { nodes, pods, images: podImages, zones, pools };
}

function runningPod(
  name: string,
  node: string,
  cpuMilli: number,
  memMi: number,
  image: string,
  hostPort: number,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name.replace(/-run-\d+$/, '') } },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'main',
          image,
          resources: { requests: { cpu: `${cpuMilli}m`, memory: `${memMi}Mi` } },
          ports: hostPort ? [{ containerPort: hostPort, hostPort }] : undefined,
        },
      ],
    },
    status: { phase: 'Running' },
  };
}

export interface PodGenOptions {
  seed?: number | string;
  count: number;
  cluster: GeneratedCluster;
  /** namespace of the generated pods, default "default" */
  namespace?: string;
  /** name prefix, default "pending" */
  prefix?: string;
  /**
   * false: only requests, images and init containers — no selectors, affinities, tolerations, GPUs or
   * host ports ("uniform" pods that fit most nodes). Default true.
   */
  constraints?: boolean;
}

/**
 * Pending pods (no nodeName) with a mix of features: ~10% best-effort, ~5% GPU (tolerating the GPU
 * taint), ~10% spot-tolerant, ~20% nodeSelector on a pool, ~15% required zone affinity, ~25% preferred
 * affinities, ~3% host ports, ~10% init containers / sidecars, images from the cluster's catalog.
 */
export function generatePods(opts: PodGenOptions): Pod[] {
  const rng = new Rng(opts.seed ?? 2);
  const { cluster } = opts;
  const out: Pod[] = [];
  const poolNames = cluster.pools.map((p) => p.name).filter((p) => p !== 'gpu' && p !== 'spot');
  for (let i = 0; i < opts.count; i++) {
    const constrained = opts.constraints !== false;
    const r = constrained ? rng.next() : 0.5 + rng.next() * 0.5; // uniform pods: never best-effort/GPU/spot/selector
    const containers: Container[] = [];
    const nContainers = 1 + (rng.next() < 0.25 ? 1 : 0);
    const bestEffort = r < 0.1;
    for (let c = 0; c < nContainers; c++) {
      const requests: Record<string, string> = {};
      if (!bestEffort) {
        requests.cpu = `${50 * (1 + rng.int(40))}m`;
        requests.memory = `${64 * (1 + rng.int(64))}Mi`;
        if (rng.next() < 0.1) requests['ephemeral-storage'] = `${1 + rng.int(10)}Gi`;
      }
      containers.push({ name: `c${c}`, image: rng.pick(cluster.images), resources: { requests } });
    }
    const tolerations: Toleration[] = [];
    let nodeSelector: Record<string, string> | undefined;
    const required: NodeSelectorRequirement[] = [];
    const gpu = r >= 0.1 && r < 0.15;
    if (gpu) {
      (containers[0].resources!.requests as Record<string, string>)['nvidia.com/gpu'] = String(
        1 + rng.int(2),
      );
      tolerations.push({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' });
    } else if (r < 0.25) {
      tolerations.push({
        key: 'cloud.example.com/spot',
        operator: 'Equal',
        value: 'true',
        effect: 'NoSchedule',
      });
    } else if (r < 0.45) {
      nodeSelector = { 'example.com/pool': rng.pick(poolNames) };
    }
    if (constrained && rng.next() < 0.05) tolerations.push({ operator: 'Exists' }); // tolerates everything (daemon-like)
    if (constrained && rng.next() < 0.15)
      required.push({
        key: 'topology.kubernetes.io/zone',
        operator: 'In',
        values: rng.shuffle(cluster.zones.slice()).slice(0, 1 + rng.int(2)),
      });
    if (constrained && rng.next() < 0.05)
      required.push({
        key: 'example.com/generation',
        operator: rng.next() < 0.5 ? 'Gt' : 'Lt',
        values: [String(1 + rng.int(4))],
      });
    if (constrained && rng.next() < 0.05)
      required.push({ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['arm64'] });
    const preferred =
      constrained && rng.next() < 0.25
        ? [
            {
              weight: 1 + rng.int(100),
              preference: {
                matchExpressions: [
                  {
                    key: 'topology.kubernetes.io/zone',
                    operator: 'In' as const,
                    values: [rng.pick(cluster.zones)],
                  },
                ],
              },
            },
            ...(rng.next() < 0.5
              ? [
                  {
                    weight: 1 + rng.int(50),
                    preference: {
                      matchExpressions: [
                        { key: 'node.kubernetes.io/instance-type', operator: 'Exists' as const },
                        { key: 'example.com/pool', operator: 'NotIn' as const, values: ['spot'] },
                      ],
                    },
                  },
                ]
              : []),
          ]
        : undefined;
    if (constrained && rng.next() < 0.03)
      containers[0].ports = [
        {
          containerPort: 8080 + rng.int(4),
          hostPort: 8080 + rng.int(4),
          protocol: rng.next() < 0.8 ? 'TCP' : 'UDP',
        },
      ];
    let initContainers: Container[] | undefined;
    if (rng.next() < 0.1) {
      initContainers = [
        {
          name: 'init',
          image: rng.pick(cluster.images),
          resources: { requests: { cpu: `${100 * (1 + rng.int(20))}m`, memory: '128Mi' } },
        },
      ];
      if (rng.next() < 0.5)
        initContainers.push({
          name: 'sidecar',
          image: rng.pick(cluster.images),
          restartPolicy: 'Always',
          resources: { requests: { cpu: '50m', memory: '64Mi' } },
        });
    }
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${opts.prefix ?? 'pending'}-${i}`,
        namespace: opts.namespace ?? 'default',
        labels: { app: `app-${i % 50}` },
      },
      spec: {
        containers,
        initContainers,
        tolerations: tolerations.length ? tolerations : undefined,
        nodeSelector,
        affinity:
          required.length || preferred
            ? {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: required.length
                    ? { nodeSelectorTerms: [{ matchExpressions: required }] }
                    : undefined,
                  preferredDuringSchedulingIgnoredDuringExecution: preferred,
                },
              }
            : undefined,
      },
      status: { phase: 'Pending' },
    });
  }
  return out;
}

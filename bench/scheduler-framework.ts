/**
 * `kubesim bench scheduler-framework`: the whole scheduling cycle as kube-scheduler runs it —
 * PreFilter, Filter (kernel window or per-node path), PreScore/Score/NormalizeScore for every
 * score plugin of the default profile (node-local plugins from the kernel + PodTopologySpread +
 * InterPodAffinity), selectHost, Reserve, assume — per pod, js vs wasm kernels.
 *
 * Two workloads: "plain" (generated pods; PodTopologySpread/InterPodAffinity skip at PreFilter, so
 * the kernel runs upstream's sampling window in one call) and "spread" (every pod carries a zone
 * topology spread constraint and a preferred anti-affinity, so the framework filters per node and
 * scores the cross-pod plugins). Each iteration schedules a batch and then forgets it.
 *
 * The plain cycle with a user plugin, trusted vs contained, is the scheduler-plugins suite
 * (bench/scheduler-plugins.ts).
 */
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { generateCluster, generatePods } from '../src/sim/cluster-gen.js';
import { SchedulerCore } from '../src/scheduler/scheduler.js';
import type { Pod } from '../src/api/types.js';

const BATCH = 50;

function spreadPods(pods: Pod[]): Pod[] {
  return pods.map((p, i) => ({
    ...p,
    metadata: { ...p.metadata, labels: { ...(p.metadata.labels ?? {}), app: `svc-${i % 20}` } },
    spec: {
      ...p.spec,
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: `svc-${i % 20}` } },
        },
      ],
      affinity: {
        ...(p.spec.affinity ?? {}),
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 50,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: `svc-${i % 20}` } },
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
    },
  }));
}

export const suite: BenchSuite = {
  name: 'scheduler-framework',
  description:
    'full scheduling cycle per pod (framework + kernels + cross-pod plugins): js vs wasm, plain vs topology-spread workloads',
  sizeUnit: 'nodes',
  defaultSizes: [1000, 5000],
  quickSizes: [1000],
  async run(opts: BenchOptions, rec: BenchRecorder): Promise<void> {
    for (const size of opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes)) {
      const cluster = generateCluster({ seed: opts.seed, nodes: size });
      const plain = generatePods({ seed: opts.seed + 1, count: 400, cluster });
      const workloads: [string, Pod[]][] = [
        ['plain', plain],
        ['spread', spreadPods(plain)],
      ];
      for (const [wl, pods] of workloads) {
        for (const kernel of ['js', 'wasm'] as const) {
          const core = new SchedulerCore({
            nodes: cluster.nodes,
            pods: cluster.pods,
            kernel,
            seed: opts.seed,
          });
          let next = 0;
          let scheduled = 0;
          let attempts = 0;
          await rec.measure(
            `cycle ${wl}`,
            () => {
              const assumed: Pod[] = [];
              for (let b = 0; b < BATCH; b++) {
                const pod = pods[next];
                next = (next + 1) % pods.length;
                const out = core.schedule(pod);
                attempts++;
                if (out.kind === 'scheduled' && core.reserveAndAssume(out) === null) {
                  assumed.push(pod);
                  scheduled++;
                }
              }
              for (const p of assumed) core.forget(p);
            },
            { mode: kernel, size, units: BATCH, unit: 'pods', figures: {} },
          );
          rec.notes.push(`${wl}/${kernel}/${size}: ${scheduled}/${attempts} attempts placed`);
        }
      }
    }
  },
};

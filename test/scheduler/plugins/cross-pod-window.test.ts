// Differential test: PodTopologySpread and InterPodAffinity inside the kernel window (per-domain
// verdicts and score sums, src/scheduler/engine/crosspod.ts) against the per-node plugin path
// (the plugins' own Filter/Score per node, the reference), on the js and the wasm kernel, through
// SchedulerCore: the same placements, evaluated/feasible counts, FitError messages and start
// index rotation for a seeded mix of spread and affinity shapes on a cluster where some nodes lack
// the topology keys.
import { describe, expect, it } from 'vitest';
import type {
  Node,
  Pod,
  PodAffinityTerm,
  Service,
  TopologySpreadConstraint,
} from '../../../src/api/types.js';
import { generateCluster, generatePods } from '../../../src/sim/cluster-gen.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { Rng } from '../../../src/util/rng.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const RACK = 'example.com/rack';

function cluster(seed: number) {
  const c = generateCluster({ seed, nodes: 240, zones: 4, utilization: 0.45 });
  const nodes: Node[] = c.nodes.map((n, i) => {
    const labels = { ...n.metadata.labels };
    if (i % 17 === 5) delete labels[ZONE]; // nodes without a zone
    if (i % 11 !== 3) labels[RACK] = i % 29 === 0 ? '' : `r${i % 7}`; // some without a rack, a few ""
    return { ...n, metadata: { ...n.metadata, labels } };
  });
  // a few running pods whose required anti-affinity keeps "noisy" pods off their nodes
  const rng = new Rng(seed + 1);
  const guards: Pod[] = Array.from({ length: 12 }, (_, i) => ({
    metadata: { name: `guard-${i}`, namespace: 'default', labels: { app: 'guard' } },
    spec: {
      nodeName: nodes[rng.int(nodes.length)].metadata.name,
      containers: [{ name: 'c', image: 'busybox' }],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { team: 'noisy' } }, topologyKey: HOST },
          ],
        },
      },
    },
    status: { phase: 'Running' },
  }));
  return { nodes, running: [...c.pods, ...guards], generated: c };
}

const term = (app: string, topologyKey: string): PodAffinityTerm => ({
  labelSelector: { matchLabels: { app } },
  topologyKey,
});
const spread = (
  app: string,
  topologyKey: string,
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway',
  extra: Partial<TopologySpreadConstraint> = {},
): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey,
  whenUnsatisfiable,
  labelSelector: { matchLabels: { app } },
  ...extra,
});

/** one pending pod of shape `k` */
function shaped(base: Pod, k: number, i: number): Pod {
  const app = `a${i % 5}`;
  const labels: Record<string, string> = { app, version: `v${i % 2}` };
  const spec: Pod['spec'] = { ...base.spec, affinity: undefined, topologySpreadConstraints: undefined };
  switch (k) {
    case 0: // the bench's spread workload
      spec.topologySpreadConstraints = [spread(app, ZONE, 'DoNotSchedule')];
      spec.affinity = {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: term(app, HOST) }],
        },
      };
      break;
    case 1: // one per node
      spec.affinity = {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(app, HOST)] },
      };
      break;
    case 2: // next to an app (the first pod of the group matches itself)
      spec.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(app, ZONE)] } };
      break;
    case 3: // soft spread over zones and hosts
      spec.topologySpreadConstraints = [
        spread(app, ZONE, 'ScheduleAnyway', { maxSkew: 2 }),
        spread(app, HOST, 'ScheduleAnyway'),
      ];
      break;
    case 4: // two hard constraints, one on a key some nodes lack, and a soft one on it
      spec.topologySpreadConstraints = [
        spread(app, ZONE, 'DoNotSchedule', { maxSkew: 2 }),
        spread(app, RACK, 'DoNotSchedule'),
        spread(app, RACK, 'ScheduleAnyway', { maxSkew: 3 }),
      ];
      break;
    case 5: // more domains wanted than there are zones: the global minimum is 0
      spec.topologySpreadConstraints = [spread(app, ZONE, 'DoNotSchedule', { minDomains: 6 })];
      break;
    case 6: // inclusion policies with a node selector and tolerations
      spec.nodeSelector = { 'example.com/pool': 'general-small' };
      spec.topologySpreadConstraints = [
        spread(app, ZONE, 'DoNotSchedule', { nodeAffinityPolicy: 'Ignore', nodeTaintsPolicy: 'Honor' }),
        spread(app, RACK, 'ScheduleAnyway', { nodeAffinityPolicy: 'Honor' }),
      ];
      break;
    case 7: // matchLabelKeys: only the same version counts
      spec.topologySpreadConstraints = [spread(app, ZONE, 'DoNotSchedule', { matchLabelKeys: ['version'] })];
      break;
    case 8: // no constraints of its own: the system defaults through the Service (nodes without a zone read "")
      labels.svc = 'web';
      break;
    case 9: // kept off the guards' nodes, drawn to its app, away from another
      labels.team = 'noisy';
      spec.affinity = {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 30, podAffinityTerm: term(app, ZONE) }],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 70, podAffinityTerm: term('a1', RACK) },
          ],
        },
      };
      break;
    case 10: // nothing to be next to, and it does not match its own term: fits nowhere
      spec.affinity = {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('ghost', ZONE)] },
      };
      break;
    case 11: // one per region (every node has one): unschedulable once one is placed
      labels.app = 'regional';
      spec.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [term('regional', 'topology.kubernetes.io/region')],
        },
      };
      break;
  }
  return { ...base, metadata: { ...base.metadata, name: `p${i}-s${k}`, labels }, spec };
}

const SERVICES: Service[] = [
  { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { svc: 'web' } } } as Service,
];

type Mode = 'per-node' | 'window' | 'window, RunScorePlugins';

function run(mode: Mode, kernel: 'js' | 'wasm', seed: number) {
  const { nodes, running, generated } = cluster(seed);
  const base = generatePods({ seed: seed + 2, count: 180, cluster: generated });
  const core = new SchedulerCore({ nodes, pods: running, seed, kernel, objects: { services: SERVICES } });
  let crossPodWindows = 0;
  let crossPodTotals = 0;
  for (const f of core.frameworks.values()) {
    const wf = f.windowFilter;
    const fs = f.fastScorer;
    if (mode === 'per-node' || !wf) {
      f.windowFilter = undefined;
      f.fastScorer = undefined;
      continue;
    }
    f.windowFilter = {
      ...wf,
      covers: wf.covers,
      passesAll: wf.passesAll.bind(wf),
      run: wf.run.bind(wf),
      coversInCycle(state, name) {
        const yes = wf.coversInCycle?.(state, name) ?? false;
        if (yes) crossPodWindows++;
        return yes;
      },
    };
    if (mode === 'window, RunScorePlugins' || !fs) f.fastScorer = undefined;
    else
      f.fastScorer = {
        totals(state, pod, ns) {
          const r = fs.totals(state, pod, ns);
          if (r && !state.skipScorePlugins.has('InterPodAffinity')) crossPodTotals++;
          if (r && !state.skipScorePlugins.has('PodTopologySpread')) crossPodTotals++;
          return r;
        },
      };
  }
  const rng = new Rng(seed + 3);
  const placed: Pod[] = [];
  const log: string[] = [];
  base.forEach((b, i) => {
    const pod = shaped(b, rng.int(12), i);
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      log.push(
        `${pod.metadata.name} -> ${out.nodeName} (${out.result.evaluatedNodes}/${out.result.feasibleNodes})`,
      );
      core.reserveAndAssume(out);
      placed.push(out.pod);
      if (placed.length % 9 === 0) core.forget(placed[rng.int(placed.length)]);
    } else if (out.kind === 'unschedulable') log.push(`${pod.metadata.name}: ${out.fitError.message}`);
    else log.push(`${pod.metadata.name}: error ${out.message}`);
  });
  return { log, next: core.algo.nextStartNodeIndex, crossPodWindows, crossPodTotals };
}

describe('cross-pod plugins in the kernel window vs the per-node plugins', () => {
  for (const seed of [3, 8]) {
    it(`same placements, counts and FitErrors: per-node, js window, wasm window (seed ${seed})`, () => {
      const ref = run('per-node', 'js', seed);
      for (const kernel of ['js', 'wasm'] as const) {
        for (const mode of ['window', 'window, RunScorePlugins'] as const) {
          const got = run(mode, kernel, seed);
          expect(got.log, `${mode}, ${kernel}`).toEqual(ref.log);
          expect(got.next).toBe(ref.next);
          expect(got.crossPodWindows).toBeGreaterThan(100);
          if (mode === 'window') expect(got.crossPodTotals).toBeGreaterThan(60);
        }
      }
      // the workload reaches every outcome
      const text = ref.log.join('\n');
      expect(text).toContain("didn't match pod topology spread constraints");
      expect(text).toContain("didn't match pod affinity rules");
      expect(text).toContain("didn't match pod anti-affinity rules");
      expect(ref.log.filter((l) => l.includes(' -> ')).length).toBeGreaterThan(100);
    });
  }
});

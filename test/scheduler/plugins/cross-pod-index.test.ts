// PodTopologySpread and InterPodAffinity read the snapshot's incrementally kept counts (matching
// pods per node, built once through the label index and then updated on every pod add and remove;
// existing pods' alike affinity terms grouped per node). Differential: the same seeded workload,
// with pods placed and forgotten, scheduled with those counts and with them replaced by a walk over
// every pod of every node per call (as upstream does) gives identical placements, score tables and
// failure messages. More distinct selectors than the snapshot keeps counters for force evictions.
import { describe, expect, it } from 'vitest';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import type { Node, Pod } from '../../../src/api/types.js';
import type { NodeInfo, TermGroup, TermKind } from '../../../src/scheduler/framework/snapshot.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

function cluster(rng: Rng): { nodes: Node[]; running: Pod[] } {
  const zones = ['a', 'b', 'c'];
  const nodes: Node[] = [];
  for (let i = 0; i < 60; i++) {
    const b = makeNode(`n${i}`)
      .capacity({ cpu: '8', memory: '32Gi', pods: '30' })
      .label('kubernetes.io/hostname', `n${i}`)
      .label('topology.kubernetes.io/zone', zones[i % 3]);
    if (i % 10 === 7) b.label('rack', `r${i % 4}`); // a topology key only some nodes have
    nodes.push(b.obj());
  }
  const running: Pod[] = [];
  for (let i = 0; i < 400; i++) {
    const b = makePod(`run${i}`)
      .node(`n${rng.int(60)}`)
      .req({ cpu: '100m' })
      .label('app', `app${rng.int(6)}`)
      .label('tier', rng.pick(['web', 'db', 'cache']));
    if (rng.int(5) === 0) b.namespace('other');
    if (rng.int(20) === 0) b.terminating();
    if (rng.int(8) === 0)
      b.preferredPodAffinity(7, {
        labelSelector: sel().label('tier', 'db').obj(),
        topologyKey: 'topology.kubernetes.io/zone',
      });
    if (rng.int(10) === 0)
      b.podAntiAffinity({
        labelSelector: sel().in('app', ['app1', 'app2']).obj(),
        topologyKey: 'kubernetes.io/hostname',
      });
    running.push(b.obj());
  }
  return { nodes, running };
}

function pending(rng: Rng): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < 150; i++) {
    const app = `app${rng.int(6)}`;
    const b = makePod(`new${i}`)
      .req({ cpu: '200m' })
      .label('app', app)
      .label('tier', rng.pick(['web', 'db']))
      .label('batch', `b${i % 90}`);
    const shape = rng.int(9);
    if (shape === 0)
      b.spreadConstraint(1, 'topology.kubernetes.io/zone', 'DoNotSchedule', sel().label('app', app).obj());
    if (shape === 1)
      b.spreadConstraint(2, 'kubernetes.io/hostname', 'ScheduleAnyway', sel().in('app', [app, 'app0']).obj());
    if (shape === 2) b.spreadConstraint(1, 'rack', 'ScheduleAnyway', sel().label('tier', 'web').obj()); // nodes without the key
    if (shape === 3)
      b.spreadConstraint(
        1,
        'topology.kubernetes.io/zone',
        'ScheduleAnyway',
        sel().notIn('app', ['app3']).obj(),
      ); // no In: walks every pod
    if (shape === 4)
      b.preferredPodAntiAffinity(50, {
        labelSelector: sel().label('app', app).obj(),
        topologyKey: 'kubernetes.io/hostname',
      });
    if (shape === 5)
      b.preferredPodAffinity(20, {
        labelSelector: sel().in('tier', ['db', 'cache']).exists('app').obj(),
        topologyKey: 'topology.kubernetes.io/zone',
      }).podAntiAffinity({
        labelSelector: sel().label('app', app).obj(),
        topologyKey: 'kubernetes.io/hostname',
      });
    // DoNotSchedule over all zones (nodeAffinityPolicy Ignore) for a pod held to zone a: fails once a leads
    if (shape === 6)
      b.spreadConstraint(
        1,
        'topology.kubernetes.io/zone',
        'DoNotSchedule',
        sel().label('app', app).obj(),
        undefined,
        'Ignore',
      ).nodeSelector({ 'topology.kubernetes.io/zone': 'a' });
    if (shape === 7)
      b.podAntiAffinity({
        labelSelector: sel().in('tier', ['web', 'cache']).obj(),
        topologyKey: 'topology.kubernetes.io/zone',
      });
    // one selector per batch: ~90 distinct counters, more than the snapshot keeps
    if (shape === 8)
      b.spreadConstraint(
        1,
        'kubernetes.io/hostname',
        'ScheduleAnyway',
        sel()
          .label('batch', `b${i % 90}`)
          .obj(),
      ).preferredPodAffinity(5, {
        labelSelector: sel()
          .label('batch', `b${(i + 1) % 90}`)
          .obj(),
        topologyKey: 'topology.kubernetes.io/zone',
      });
    if (rng.int(6) === 0) b.namespace('other');
    out.push(b.obj());
  }
  return out;
}

/** the snapshot's counts recomputed from every pod of every node on each call: the reference */
function walkEveryPod(core: SchedulerCore): void {
  const s = core.snapshot;
  s.candidatePods = () => undefined;
  s.podMatchCounts = (_key, _sel, matches) => {
    const m = new Map<NodeInfo, number>();
    for (const ni of s.list()) for (const p of ni.pods) if (matches(p)) m.set(ni, (m.get(ni) ?? 0) + 1);
    return m;
  };
  // one group per (pod, term): upstream's walk over the pods with affinity
  s.termGroups = (kind: TermKind) => {
    const out: TermGroup[] = [];
    for (const ni of s.list())
      for (const p of ni.pods) {
        const terms = {
          requiredAffinity: p.requiredAffinityTerms,
          requiredAnti: p.requiredAntiAffinityTerms,
          preferredAffinity: p.preferredAffinityTerms,
          preferredAnti: p.preferredAntiAffinityTerms,
        }[kind];
        for (const t of terms)
          out.push({
            term: t,
            weight: 'weight' in t ? (t.weight as number) : 1,
            perNode: new Map([[ni, 1]]),
          });
      }
    return out;
  };
}

function run(counts: boolean, kernel: 'js' | 'wasm'): string[] {
  const rng = new Rng(5);
  const { nodes, running } = cluster(rng);
  const core = new SchedulerCore({ nodes, pods: running, seed: 9, kernel });
  if (!counts) walkEveryPod(core);
  // RunScorePlugins' tables (the kernel window's totals would leave them out): compared too
  for (const f of core.frameworks.values()) f.fastScorer = undefined;
  const log: string[] = [];
  const placed: Pod[] = [];
  for (const pod of pending(rng)) {
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      log.push(`${pod.metadata.name} → ${out.nodeName} ${JSON.stringify(out.result.scores?.total ?? [])}`);
      core.reserveAndAssume(out);
      placed.push(out.pod);
      // every 7th placement, an earlier pod leaves: counts go down as well as up
      if (placed.length % 7 === 0) core.forget(placed[rng.int(placed.length)]);
    } else if (out.kind === 'unschedulable') log.push(`${pod.metadata.name} ✗ ${out.fitError.message}`);
    else log.push(`${pod.metadata.name} error ${out.message}`);
  }
  return log;
}

describe('cross-pod plugins through the snapshot counts', () => {
  for (const kernel of ['js', 'wasm'] as const) {
    it(`place every pod exactly as the walk over every pod does (${kernel} kernel)`, () => {
      const withIndex = run(true, kernel);
      expect(withIndex).toEqual(run(false, kernel));
      // the workload exercises both outcomes and real score tables
      expect(withIndex.some((l) => l.includes('topology spread constraints'))).toBe(true);
      expect(withIndex.some((l) => l.includes("didn't match pod anti-affinity rules"))).toBe(true);
      expect(withIndex.filter((l) => l.includes('→') && !l.endsWith('[]')).length).toBeGreaterThan(50);
    });
  }
});

// PodTopologySpread reads the matching pods per topology domain from sums the snapshot keeps
// across cycles (ClusterSnapshot.domainSums: summed once per domains and eligibility mask, then
// updated on every pod add and remove) once a selector's pods sit on many nodes. Differential: a
// seeded spread workload — DoNotSchedule and ScheduleAnyway constraints over zones and a key only
// some nodes have, pods held to some zones (the Honor policy's masks), pods placed and forgotten,
// nodes relabelled — places every pod exactly as with the counts summed per node in every cycle.
import { describe, expect, it } from 'vitest';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import type { Node, Pod } from '../../../src/api/types.js';
import type { NodeInfo } from '../../../src/scheduler/framework/snapshot.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

const ZONE = 'topology.kubernetes.io/zone';
const ZONES = ['a', 'b', 'c', 'd'];

function node(i: number, zone: string): Node {
  const b = makeNode(`n${i}`)
    .capacity({ cpu: '16', memory: '64Gi', pods: '40' })
    .label('kubernetes.io/hostname', `n${i}`)
    .label(ZONE, zone);
  if (i % 5 !== 0) b.label('rack', `r${i % 6}`); // every fifth node without a rack
  return b.obj();
}

function cluster(rng: Rng): { nodes: Node[]; running: Pod[] } {
  const nodes: Node[] = [];
  for (let i = 0; i < 160; i++) nodes.push(node(i, ZONES[i % 4]));
  // three apps on most nodes: their counts cover far more than 64 nodes
  const running: Pod[] = [];
  for (let i = 0; i < 900; i++)
    running.push(
      makePod(`run${i}`)
        .node(`n${rng.int(160)}`)
        .req({ cpu: '100m' })
        .label('app', `app${rng.int(3)}`)
        .obj(),
    );
  return { nodes, running };
}

function pending(rng: Rng): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < 160; i++) {
    const app = `app${rng.int(3)}`;
    const b = makePod(`new${i}`).req({ cpu: '200m' }).label('app', app);
    const shape = rng.int(5);
    if (shape === 0) b.spreadConstraint(1, ZONE, 'DoNotSchedule', sel().label('app', app).obj());
    if (shape === 1) b.spreadConstraint(3, ZONE, 'ScheduleAnyway', sel().in('app', [app, 'app0']).obj());
    if (shape === 2)
      b.spreadConstraint(2, 'rack', 'ScheduleAnyway', sel().label('app', app).obj()).spreadConstraint(
        4,
        ZONE,
        'DoNotSchedule',
        sel().label('app', app).obj(),
      );
    if (shape === 3)
      b.spreadConstraint(2, ZONE, 'DoNotSchedule', sel().label('app', app).obj()).spreadConstraint(
        1,
        'rack',
        'ScheduleAnyway',
        sel().label('app', app).obj(),
      );
    // over every zone (nodeAffinityPolicy Ignore) for a pod held to zone a: fails while a leads
    if (shape === 4)
      b.spreadConstraint(
        1,
        ZONE,
        'DoNotSchedule',
        sel().label('app', app).obj(),
        undefined,
        'Ignore',
      ).nodeSelector({
        [ZONE]: 'a',
      });
    // held to two or three zones: eligibility masks under the default Honor policy
    if (rng.int(3) === 0) b.nodeAffinityIn(ZONE, rng.int(2) === 0 ? ['a', 'b'] : ['b', 'c', 'd']);
    out.push(b.obj());
  }
  return out;
}

function run(kept: boolean): { log: string[]; keptReads: number } {
  const rng = new Rng(11);
  const { nodes, running } = cluster(rng);
  const core = new SchedulerCore({ nodes, pods: running, seed: 3, kernel: 'wasm' });
  const s = core.snapshot;
  let keptReads = 0;
  if (kept) {
    const domainSums = s.domainSums.bind(s);
    s.domainSums = (...a) => {
      const r = domainSums(...a);
      if (r) keptReads++;
      return r;
    };
  } else {
    // the reference: counts the snapshot does not keep (plain maps), summed per call
    const podMatchCounts = s.podMatchCounts.bind(s);
    s.podMatchCounts = (...a) => new Map<NodeInfo, number>(podMatchCounts(...a));
  }
  // RunScorePlugins' tables too (the kernel window's totals would leave them out)
  for (const f of core.frameworks.values()) f.fastScorer = undefined;
  const log: string[] = [];
  const placed: Pod[] = [];
  let k = 0;
  for (const pod of pending(rng)) {
    const out = core.schedule(pod);
    if (out.kind === 'scheduled') {
      log.push(`${pod.metadata.name} → ${out.nodeName} ${JSON.stringify(out.result.scores?.total ?? [])}`);
      core.reserveAndAssume(out);
      placed.push(out.pod);
      if (placed.length % 5 === 0) core.forget(placed[rng.int(placed.length)]);
    } else if (out.kind === 'unschedulable') log.push(`${pod.metadata.name} ✗ ${out.fitError.message}`);
    else log.push(`${pod.metadata.name} error ${out.message}`);
    // now and then a node moves to another zone or loses its rack (new domains, new masks)
    if (++k % 40 === 0) {
      const i = rng.int(160);
      const n = node(i, ZONES[rng.int(4)]);
      if (rng.int(2) === 0) delete n.metadata.labels!.rack;
      s.updateNode(n);
    }
  }
  return { log, keptReads };
}

describe('PodTopologySpread with per-domain sums kept across cycles', () => {
  it('places a seeded spread workload exactly as with the counts summed every cycle', () => {
    const withKept = run(true);
    const reference = run(false);
    expect(withKept.log).toEqual(reference.log);
    // the kept sums were read, and the workload exercises both outcomes and real score tables
    expect(withKept.keptReads).toBeGreaterThan(100);
    expect(reference.keptReads).toBe(0);
    expect(withKept.log.some((l) => l.includes('topology spread constraints'))).toBe(true);
    expect(withKept.log.filter((l) => l.includes('→') && !l.endsWith('[]')).length).toBeGreaterThan(50);
  });
});

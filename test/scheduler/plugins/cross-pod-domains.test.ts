// PodTopologySpread caches, per node-set version, which nodes each constraint counts and the
// domains they form, and then adds only the matching pods from the label index; InterPodAffinity
// counts the incoming pod's required terms through the label index. Differential: through random
// pod and node changes (labels, taints, zones, nodes coming and going), every cycle's PreFilter
// and PreScore state equals the straightforward walk over every node and every pod — including
// the insertion order of the domain counts, which decides the critical paths' tie-breaks.
import { describe, expect, it } from 'vitest';
import type { Selector } from '../../../src/api/label-selector.js';
import { doNotScheduleTaint, findMatchingUntoleratedTaint } from '../../../src/api/taints.js';
import type { Node, Pod, Service, Taint } from '../../../src/api/types.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { compileRequiredNodeAffinity } from '../../../src/api/node-affinity.js';
import {
  ClusterSnapshot,
  termMatches,
  type AffinityTerm,
  type NodeInfo,
} from '../../../src/scheduler/framework/snapshot.js';
import { PodTopologySpread } from '../../../src/scheduler/plugins/pod-topology-spread.js';
import { InterPodAffinity } from '../../../src/scheduler/plugins/inter-pod-affinity.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod, sel } from '../../helpers/builders.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

interface RefConstraint {
  topologyKey: string;
  selector: Selector;
  nodeAffinityPolicy: 'Honor' | 'Ignore';
  nodeTaintsPolicy: 'Honor' | 'Ignore';
}

// ---------------------------------------------------------------- reference (every node, every pod)

function included(c: RefConstraint, pod: Pod, ni: NodeInfo): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !compileRequiredNodeAffinity(pod)(ni.node)) return false;
  if (
    c.nodeTaintsPolicy === 'Honor' &&
    findMatchingUntoleratedTaint(ni.node.spec?.taints, pod.spec.tolerations, doNotScheduleTaint) !== undefined
  )
    return false;
  return true;
}

function countOn(ni: NodeInfo, c: RefConstraint, ns: string): number {
  let n = 0;
  for (const p of ni.pods) {
    if (p.pod.metadata.deletionTimestamp) continue;
    if ((p.pod.metadata.namespace ?? 'default') !== ns) continue;
    if (c.selector.matches(p.pod.metadata.labels)) n++;
  }
  return n;
}

const hasAll = (ni: NodeInfo, cs: readonly RefConstraint[]) =>
  cs.every((c) => Object.hasOwn(ni.labels, c.topologyKey));

/** PreFilter's TpValueToMatchNum as upstream computes it: per node in list order */
function refMatchNum(snap: ClusterSnapshot, pod: Pod, cs: readonly RefConstraint[]): [string, number][][] {
  const ns = pod.metadata.namespace ?? 'default';
  const out = cs.map(() => new Map<string, number>());
  for (const ni of snap.list()) {
    if (!hasAll(ni, cs)) continue;
    cs.forEach((c, i) => {
      if (!included(c, pod, ni)) return;
      const v = ni.labels[c.topologyKey];
      out[i].set(v, (out[i].get(v) ?? 0) + countOn(ni, c, ns));
    });
  }
  return out.map((m) => [...m]);
}

/** PreScore's topologyValueToPodCounts: domains of the filtered nodes, pods counted over all nodes */
function refPodCounts(
  snap: ClusterSnapshot,
  pod: Pod,
  cs: readonly RefConstraint[],
  filtered: readonly NodeInfo[],
  requireAll: boolean,
): [string, number][][] {
  const ns = pod.metadata.namespace ?? 'default';
  const out = cs.map(() => new Map<string, number>());
  // upstream reads a missing topology label as "" (Go's map zero value)
  const valueOf = (ni: NodeInfo, c: RefConstraint) => ni.labels[c.topologyKey] ?? '';
  for (const ni of filtered) {
    if (requireAll && !hasAll(ni, cs)) continue;
    cs.forEach((c, i) => {
      if (c.topologyKey !== HOST && !out[i].has(valueOf(ni, c))) out[i].set(valueOf(ni, c), 0);
    });
  }
  for (const ni of snap.list()) {
    if (requireAll && !hasAll(ni, cs)) continue;
    cs.forEach((c, i) => {
      if (!included(c, pod, ni)) return;
      const cur = out[i].get(valueOf(ni, c));
      if (cur !== undefined) out[i].set(valueOf(ni, c), cur + countOn(ni, c, ns));
    });
  }
  return out.map((m) => [...m]);
}

/** InterPodAffinity's affinity / anti-affinity counts for the incoming pod's required terms */
function refAffinityCounts(
  snap: ClusterSnapshot,
  req: readonly AffinityTerm[],
  anti: readonly AffinityTerm[],
): { affinity: string[]; anti: string[] } {
  const affinity = new Map<string, number>();
  const antiM = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const ni of snap.list()) {
    const labels = ni.labels;
    for (const ep of ni.pods) {
      if (req.length > 0 && req.every((t) => termMatches(t, ep.pod, undefined))) {
        for (const t of req)
          if (t.topologyKey in labels) bump(affinity, `${t.topologyKey}\0${labels[t.topologyKey]}`);
      }
      for (const t of anti)
        if (termMatches(t, ep.pod, undefined) && t.topologyKey in labels)
          bump(antiM, `${t.topologyKey}\0${labels[t.topologyKey]}`);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].map(([k, v]) => `${k}=${v}`).sort();
  return { affinity: sorted(affinity), anti: sorted(antiM) };
}

// ---------------------------------------------------------------- random cluster and pods

const ZONES = ['a', 'b', 'c', 'd'];
const POOLS = ['x', 'y'];
const TAINT: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

function randomNode(rng: Rng, name: string): Node {
  const b = makeNode(name).label(HOST, name);
  if (rng.int(8) !== 0) b.label(ZONE, rng.pick(ZONES)); // some nodes lack the zone key
  if (rng.int(3) !== 0) b.label('pool', rng.pick(POOLS));
  if (rng.int(5) === 0) b.label('rack', `r${rng.int(3)}`);
  if (rng.int(4) === 0) b.taint(TAINT);
  return b.obj();
}

function randomSelector(rng: Rng) {
  switch (rng.int(5)) {
    case 0:
      return sel()
        .label('app', `app${rng.int(4)}`)
        .obj();
    case 1:
      return sel()
        .in('app', [`app${rng.int(4)}`, `app${rng.int(4)}`])
        .obj();
    case 2:
      return sel().notIn('app', ['app0']).obj(); // no In requirement: every node's pods walked
    case 3:
      return sel().exists('tier').in('app', ['app1', 'app2']).obj();
    default:
      return sel()
        .label('tier', rng.pick(['web', 'db']))
        .obj();
  }
}

/**
 * One incoming pod shape. Workloads repeat a few shapes (one per Deployment), which is what the
 * domain cache relies on; the test draws from a small set so that cached entries get reused.
 */
function shape(rng: Rng, i: number): Pod {
  const app = `app${rng.int(4)}`;
  const b = makePod(`shape${i}`)
    .label('app', app)
    .label('tier', rng.pick(['web', 'db']));
  if (rng.int(4) === 0) b.namespace('other');
  const kind = rng.int(5);
  if (kind === 0) {
    // no constraints of its own: the system defaults through the Service selecting the app
    // (ScheduleAnyway on hostname and zone, topology keys not all required at PreScore)
  } else if (kind === 1) {
    // the system defaults' keys as the pod's own DoNotSchedule constraints (every key required)
    b.spreadConstraint(3, HOST, 'DoNotSchedule', sel().label('app', app).obj()).spreadConstraint(
      5,
      ZONE,
      'DoNotSchedule',
      sel().label('app', app).obj(),
    );
  } else {
    for (let k = 1 + rng.int(2); k > 0; k--) {
      b.spreadConstraint(
        1 + rng.int(2),
        rng.pick([ZONE, ZONE, HOST, 'rack']),
        rng.pick(['DoNotSchedule', 'ScheduleAnyway'] as const),
        randomSelector(rng),
        undefined,
        rng.pick(['Honor', 'Ignore', undefined] as const),
        rng.pick(['Honor', 'Ignore', undefined] as const),
      );
    }
  }
  const na = rng.int(6);
  if (na === 0) b.nodeSelector({ pool: rng.pick(POOLS) });
  if (na === 1) b.nodeAffinityIn(ZONE, [rng.pick(ZONES), rng.pick(ZONES)]);
  if (rng.int(3) === 0) b.toleration({ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' });
  for (let k = rng.int(3) === 0 ? 1 + rng.int(2) : 0; k > 0; k--)
    b.podAffinity({ labelSelector: randomSelector(rng), topologyKey: rng.pick([ZONE, HOST]) });
  for (let k = rng.int(3) === 0 ? 1 + rng.int(2) : 0; k > 0; k--)
    b.podAntiAffinity({ labelSelector: randomSelector(rng), topologyKey: rng.pick([ZONE, HOST, 'rack']) });
  return b.obj();
}

const services: Service[] = [0, 1, 2, 3].map((i) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: `svc${i}`, namespace: 'default' },
  spec: { selector: { app: `app${i}` } },
}));

describe('PodTopologySpread domains and InterPodAffinity required terms through caches and the label index', () => {
  it('equal the walk over every node and pod after random pod and node changes', () => {
    const rng = new Rng(7);
    const snap = new ClusterSnapshot();
    const pts = new PodTopologySpread(undefined, snap, { services });
    const ipa = new InterPodAffinity(undefined, snap);
    let nodeSeq = 0;
    const nodeNames: string[] = [];
    const removed: string[] = [];
    for (; nodeSeq < 40; nodeSeq++) {
      const name = `n${nodeSeq}`;
      snap.addNode(randomNode(rng, name));
      nodeNames.push(name);
    }
    const live: string[] = [];
    let podSeq = 0;
    const shapes = Array.from({ length: 24 }, (_, i) => shape(rng, i));
    // hostname spreading with a selector the label index cannot narrow: counted per node at Score
    shapes.push(
      makePod('shape-host')
        .label('app', 'app1')
        .spreadConstraint(2, HOST, 'ScheduleAnyway', sel().exists('tier').obj())
        .obj(),
    );
    let checkedFilter = 0,
      checkedScore = 0,
      checkedAffinity = 0,
      nonEmpty = 0,
      defaulted = 0,
      hostScored = 0;
    for (let step = 0; step < 600; step++) {
      // a few random changes between cycles
      for (let k = rng.int(6); k > 0; k--) {
        const op = rng.int(20);
        if (op < 10) {
          const b = makePod(`p${podSeq++}`)
            .label('app', `app${rng.int(4)}`)
            .node(rng.pick(nodeNames));
          if (rng.int(2) === 0) b.label('tier', rng.pick(['web', 'db', 'cache']));
          if (rng.int(5) === 0) b.namespace('other');
          if (rng.int(12) === 0) b.terminating();
          const p = b.obj();
          snap.addPod(p);
          live.push(`${p.metadata.namespace}/${p.metadata.name}`);
        } else if (op < 16 && live.length > 0) {
          snap.removePod(live.splice(rng.int(live.length), 1)[0]);
        } else if (op < 18) {
          // relabel / retaint a node: same name, new object; half the time it stays in its zone
          // (the node list keeps its order then, only the node-set version tells the caches)
          const name = rng.pick(nodeNames);
          const n = randomNode(rng, name);
          const zone = snap.get(name)!.labels[ZONE];
          if (rng.int(2) === 0) {
            if (zone === undefined) delete n.metadata.labels![ZONE];
            else n.metadata.labels![ZONE] = zone;
          }
          snap.updateNode(n);
        } else if (op < 19 && rng.int(3) === 0) {
          // a new node, or one removed earlier coming back (a new NodeInfo; its pods count again)
          const name =
            removed.length > 0 && rng.int(2) === 0
              ? removed.splice(rng.int(removed.length), 1)[0]
              : `n${nodeSeq++}`;
          snap.addNode(randomNode(rng, name));
          nodeNames.push(name);
        } else if (op === 19 && rng.int(3) === 0 && nodeNames.length > 10) {
          const name = nodeNames.splice(rng.int(nodeNames.length), 1)[0];
          snap.removeNode(name);
          removed.push(name);
        }
      }

      const pod = structuredClone(rng.pick(shapes));
      pod.metadata.name = `in${step}`;
      const nodes = snap.list();
      const state = new CycleState();
      if (pts.preFilter(state, pod, nodes) === null) {
        const s = state.read<{
          constraints: RefConstraint[];
          tpValueToMatchNum: Map<string, number>[];
          criticalPaths: { n0: number }[];
        }>('PreFilterPodTopologySpread');
        const got = s.tpValueToMatchNum.map((m) => [...m]);
        expect(got).toEqual(refMatchNum(snap, pod, s.constraints));
        // the same through the plugin's per-node path (a node list that is not the snapshot's)
        const st2 = new CycleState();
        pts.preFilter(st2, pod, [...nodes]);
        expect(
          st2
            .read<{ tpValueToMatchNum: Map<string, number>[] }>('PreFilterPodTopologySpread')
            .tpValueToMatchNum.map((m) => [...m]),
        ).toEqual(got);
        s.tpValueToMatchNum.forEach((m, i) => {
          if (m.size > 0) expect(s.criticalPaths[i].n0).toBe(Math.min(...m.values()));
        });
        if (got.some((m) => m.some(([, n]) => n > 0))) nonEmpty++;
        checkedFilter++;
      }

      const filtered = nodes.filter(() => rng.int(3) !== 0);
      const sst = new CycleState();
      if (filtered.length > 0 && pts.preScore(sst, pod, filtered) === null) {
        const s = sst.read<{ constraints: RefConstraint[]; topologyValueToPodCounts: Map<string, number>[] }>(
          'PreScorePodTopologySpread',
        );
        // every topology key is required unless the constraints are the system defaults
        const requireAll = (pod.spec.topologySpreadConstraints?.length ?? 0) > 0;
        if (!requireAll) defaulted++;
        expect(s.topologyValueToPodCounts.map((m) => [...m])).toEqual(
          refPodCounts(snap, pod, s.constraints, filtered, requireAll),
        );
        // Score: hostname constraints count the node's pods there, other keys read the domain counts
        const w = sst.read<{ topologyNormalizingWeight: number[]; ignoredNodes: Set<string> }>(
          'PreScorePodTopologySpread',
        );
        const refScore = (ni: NodeInfo) => {
          if (w.ignoredNodes.has(ni.name)) return 0;
          let x = 0;
          s.constraints.forEach((c, i) => {
            if (!Object.hasOwn(ni.labels, c.topologyKey)) return;
            const cnt =
              c.topologyKey === HOST
                ? countOn(ni, c, pod.metadata.namespace ?? 'default')
                : (s.topologyValueToPodCounts[i].get(ni.labels[c.topologyKey]) ?? 0);
            x +=
              cnt * w.topologyNormalizingWeight[i] + ((c as RefConstraint & { maxSkew: number }).maxSkew - 1);
          });
          return Math.round(x);
        };
        const scores = filtered.map((ni) => pts.score(sst, pod, ni));
        expect(scores).toEqual(filtered.map(refScore));
        if (s.constraints.some((c) => c.topologyKey === HOST) && scores.some((x) => x !== scores[0]))
          hostScored++;
        checkedScore++;
      }

      const ast = new CycleState();
      if (ipa.preFilter(ast, pod, nodes) === null) {
        const s = ast.read<{
          requiredAffinityTerms: AffinityTerm[];
          requiredAntiAffinityTerms: AffinityTerm[];
          affinityCounts: Map<string, number>;
          antiAffinityCounts: Map<string, number>;
        }>('PreFilterInterPodAffinity');
        const ref = refAffinityCounts(snap, s.requiredAffinityTerms, s.requiredAntiAffinityTerms);
        const sorted = (m: Map<string, number>) => [...m].map(([k, v]) => `${k}=${v}`).sort();
        expect(sorted(s.affinityCounts)).toEqual(ref.affinity);
        expect(sorted(s.antiAffinityCounts)).toEqual(ref.anti);
        if (ref.affinity.length + ref.anti.length > 0) checkedAffinity++;
      }
    }
    // the workload reaches every path with real counts
    expect(checkedFilter).toBeGreaterThan(200);
    expect(nonEmpty).toBeGreaterThan(100);
    expect(checkedScore).toBeGreaterThan(200);
    expect(defaulted).toBeGreaterThan(30);
    expect(hostScored).toBeGreaterThan(30);
    expect(checkedAffinity).toBeGreaterThan(100);
  });
});

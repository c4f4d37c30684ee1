// FitError.Error() cases from upstream's pkg/scheduler/framework/types_test.go (TestFitError_Error),
// numFeasibleNodesToFind from schedule_one_test.go, selectHost's reservoir tie-break.
import { describe, expect, it } from 'vitest';
import { FitError, newDiagnosis, NodeToStatus } from '../../../src/scheduler/framework/fit-error.js';
import { numFeasibleNodesToFind } from '../../../src/scheduler/engine/types.js';
import { SchedulingAlgorithm } from '../../../src/scheduler/framework/schedule-one.js';
import { ClusterSnapshot } from '../../../src/scheduler/framework/snapshot.js';
import { Code, Status } from '../../../src/scheduler/framework/status.js';
import { Rng } from '../../../src/util/rng.js';
import { makeNode, makePod } from '../../helpers/builders.js';

const U = (r: string) => new Status(Code.Unschedulable, [r]);
function fe(
  numAllNodes: number,
  statuses: Record<string, Status>,
  preFilterMsg = '',
  postFilterMsg = '',
): string {
  const d = newDiagnosis();
  for (const [n, s] of Object.entries(statuses)) d.nodeToStatus.set(n, s);
  d.preFilterMsg = preFilterMsg;
  d.postFilterMsg = postFilterMsg;
  return new FitError(makePod('p').obj(), numAllNodes, d).message;
}

describe('FitError (TestFitError_Error)', () => {
  const pre = 'Node(s) failed PreFilter plugin FalsePreFilter';
  const f1 = 'Node(s) failed Filter plugin FalseFilter-1';
  const f2 = 'Node(s) failed Filter plugin FalseFilter-2';
  const post = 'Error running PostFilter plugin FailedPostFilter';
  it('nodes failed Prefilter plugin', () => {
    expect(fe(3, { node1: U(pre), node2: U(pre), node3: U(pre) }, pre)).toBe(
      '0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.',
    );
  });
  it('nodes failed Prefilter plugin and the preemption also failed', () => {
    expect(fe(3, { node1: U(pre), node2: U(pre), node3: U(pre) }, pre, post)).toBe(
      '0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running PostFilter plugin FailedPostFilter',
    );
  });
  it('nodes failed one Filter plugin with an empty PostFilterMsg', () => {
    expect(fe(3, { node1: U(f1), node2: U(f1), node3: U(f1) })).toBe(
      '0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.',
    );
  });
  it('nodes failed one Filter plugin with a non-empty PostFilterMsg', () => {
    expect(fe(3, { node1: U(f1), node2: U(f1), node3: U(f1) }, '', post)).toBe(
      '0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter',
    );
  });
  it('nodes failed two Filter plugins with an empty PostFilterMsg', () => {
    expect(fe(3, { node1: U(f1), node2: U(f1), node3: U(f2) })).toBe(
      '0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1.',
    );
  });
  it('nodes failed two Filter plugins with a non-empty PostFilterMsg', () => {
    expect(fe(3, { node1: U(f1), node2: U(f1), node3: U(f2) }, '', post)).toBe(
      '0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter',
    );
  });
  it('failed to Permit on node', () => {
    expect(fe(1, { node1: U('Node failed Permit plugin Permit-1') })).toBe(
      '0/1 nodes are available: 1 Node failed Permit plugin Permit-1.',
    );
  });
  it('failed to Reserve on node', () => {
    expect(fe(1, { node1: U('Node failed Reserve plugin Reserve-1') })).toBe(
      '0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.',
    );
  });
  it('a status with several reasons counts each; counts sort as strings like Go sort.Strings', () => {
    const both = new Status(Code.Unschedulable, ['Insufficient cpu', 'Insufficient memory']);
    const statuses: Record<string, Status> = {};
    for (let i = 0; i < 10; i++) statuses[`a${i}`] = U('Too many pods');
    statuses.b = both;
    statuses.c = both;
    expect(fe(12, statuses)).toBe(
      '0/12 nodes are available: 10 Too many pods, 2 Insufficient cpu, 2 Insufficient memory.',
    );
  });
});

describe('numFeasibleNodesToFind (schedule_one_test.go)', () => {
  const cases: [string, number | undefined, number, number][] = [
    ['not set percentageOfNodesToScore and nodes number not more than 50', undefined, 10, 10],
    ['set profile percentageOfNodesToScore and nodes number not more than 50', 40, 10, 10],
    ['not set percentageOfNodesToScore and nodes number more than 50', undefined, 1000, 420],
    ['set profile percentageOfNodesToScore and nodes number more than 50', 40, 1000, 400],
    ['not set percentageOfNodesToScore and nodes number more than 50*125', undefined, 6000, 300],
    ['set profile percentageOfNodesToScore and nodes number more than 50*125', 40, 6000, 2400],
    ['below 100 nodes everything', undefined, 99, 99],
    ['never fewer than 100', 1, 500, 100],
    ['5% floor for huge clusters', undefined, 20000, 1000],
  ];
  for (const [name, pct, n, want] of cases) it(name, () => expect(numFeasibleNodesToFind(pct, n)).toBe(want));
});

describe('selectHost', () => {
  it('takes the highest total and breaks ties uniformly with the seeded Rng', () => {
    const nodes = ['a', 'b', 'c', 'd'].map((n) => makeNode(n).obj());
    const snap = new ClusterSnapshot(nodes);
    const list = snap.list();
    const algo = new SchedulingAlgorithm(snap, new Rng(42));
    expect(algo.selectHost(list, [1, 5, 3, 2])).toBe('b');
    const counts: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let i = 0; i < 4000; i++) counts[algo.selectHost(list, [7, 7, 1, 7])]++;
    expect(counts.c).toBe(0);
    for (const k of ['a', 'b', 'd']) expect(counts[k]).toBeGreaterThan(1150);
    const again = new SchedulingAlgorithm(snap, new Rng(42));
    const seq1 = Array.from({ length: 20 }, () => again.selectHost(list, [7, 7, 1, 7])).join('');
    const again2 = new SchedulingAlgorithm(snap, new Rng(42));
    expect(Array.from({ length: 20 }, () => again2.selectHost(list, [7, 7, 1, 7])).join('')).toBe(seq1);
  });
});

describe('NodeToStatus (upstream framework.NodeToStatus)', () => {
  // differential: the same operations on a Map; statuses by node position (setNode) and by name
  // (set, and nodes of another list) must read back exactly as the Map does, in the same order
  it('answers like a Map after random setNode / setAt / set sequences, whatever is asked first', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => makeNode(`n${i}`).obj());
    const snap = new ClusterSnapshot(nodes);
    const list = snap.list();
    const other = new ClusterSnapshot([makeNode('n3').obj(), makeNode('x').obj()]).list();
    const statuses = [U('a'), U('b'), new Status(Code.UnschedulableAndUnresolvable, ['c'])];
    const rng = new Rng(7);
    for (let round = 0; round < 300; round++) {
      const m = new NodeToStatus();
      const want = new Map<string, Status>();
      const ops = 1 + rng.int(20);
      for (let k = 0; k < ops; k++) {
        const s = statuses[rng.int(statuses.length)];
        const r = rng.int(12);
        const inList = r < 8 || r === 10;
        const ni = inList ? list[rng.int(list.length)] : other[rng.int(other.length)];
        if (r < 9) m.setNode(ni, s, inList ? list : other);
        else if (r === 9) m.set(ni.name, s);
        else m.setAt(inList ? list : other, ni.index, s);
        want.set(ni.name, s);
        // questions in the middle of the sequence (they build the name index early)
        if (rng.int(6) === 0) {
          const q = list[rng.int(list.length)];
          expect(m.get(q.name)).toBe(want.get(q.name));
          expect(m.ofNode(q)).toBe(want.get(q.name));
        }
      }
      expect([...m]).toEqual([...want]);
      expect([...m.keys()]).toEqual([...want.keys()]);
      expect([...m.values()]).toEqual([...want.values()]);
      expect(m.size).toBe(want.size);
      for (const ni of [...list, ...other]) {
        expect(m.get(ni.name)).toBe(want.get(ni.name));
        expect(m.has(ni.name)).toBe(want.has(ni.name));
      }
      for (const ni of list) expect(m.ofNode(ni)).toBe(want.get(ni.name));
      const uu = [...want.entries()].filter(
        ([n, s]) => list.some((ni) => ni.name === n) && s.code === Code.UnschedulableAndUnresolvable,
      ).length;
      const counted = m.countCode(list, Code.UnschedulableAndUnresolvable);
      if (counted !== undefined) expect(counted).toBe(uu);
      const { statuses: distinct, counts } = m.distinct();
      expect(distinct).toEqual([...new Set(want.values())]);
      expect(counts).toEqual(distinct.map((d) => [...want.values()].filter((s) => s === d).length));
    }
  });
});

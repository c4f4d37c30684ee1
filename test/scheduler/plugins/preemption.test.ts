// DefaultPreemption: victim selection with reprieve, node choice (pickOneNodeForPreemption's
// criteria in upstream's order), PodTopologySpread / InterPodAffinity state kept right through
// the what-if, and the PostFilter message when nothing helps.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import {
  DefaultPreemption,
  pickOneNodeForPreemption,
  type Candidate,
} from '../../../src/scheduler/plugins/default-preemption.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';
import { makeNode, makePod } from '../../helpers/builders.js';

const v = (name: string, priority: number, start?: string): Pod => {
  const p = makePod(name).priority(priority).obj();
  if (start) p.status = { startTime: start };
  return p;
};
const cand = (nodeName: string, victims: Pod[]): Candidate => ({ nodeName, victims, numPDBViolations: 0 });

describe('pickOneNodeForPreemption', () => {
  it('lowest highest-victim priority first', () => {
    expect(
      pickOneNodeForPreemption([cand('n1', [v('a', 10)]), cand('n2', [v('b', 5), v('c', 5)])]).nodeName,
    ).toBe('n2');
  });
  it('then the smallest sum of priorities', () => {
    expect(
      pickOneNodeForPreemption([cand('n1', [v('a', 5), v('b', 5)]), cand('n2', [v('c', 5), v('d', 1)])])
        .nodeName,
    ).toBe('n2');
  });
  it('then the fewest victims (negative priorities still sum monotonically)', () => {
    expect(
      pickOneNodeForPreemption([cand('n1', [v('a', -5), v('b', -5)]), cand('n2', [v('c', -5)])]).nodeName,
    ).toBe('n2');
  });
  it('then the latest start time of the most important victims, then the first', () => {
    expect(
      pickOneNodeForPreemption([
        cand('n1', [v('a', 5, '2026-01-01T00:00:00Z')]),
        cand('n2', [v('b', 5, '2026-01-02T00:00:00Z')]),
      ]).nodeName,
    ).toBe('n2');
    expect(
      pickOneNodeForPreemption([
        cand('n1', [v('a', 5, '2026-01-01T00:00:00Z')]),
        cand('n2', [v('b', 5, '2026-01-01T00:00:00Z')]),
      ]).nodeName,
    ).toBe('n1');
  });
});

describe('DefaultPreemption in a cycle', () => {
  const node = (name: string) =>
    makeNode(name)
      .label('kubernetes.io/hostname', name)
      .capacity({ cpu: '3', memory: '8Gi', pods: '110' })
      .obj();

  it('reprieves the most important pods: only as many victims as needed, lowest priority first', () => {
    const pods = [
      makePod('p-hi').node('n1').priority(50).req({ cpu: '1' }).obj(),
      makePod('p-mid').node('n1').priority(20).req({ cpu: '1' }).obj(),
      makePod('p-lo').node('n1').priority(10).req({ cpu: '1' }).obj(),
    ];
    const core = new SchedulerCore({ nodes: [node('n1')], pods, seed: 1 });
    const out = core.schedule(makePod('vip').priority(100).req({ cpu: '1' }).obj());
    expect(out.kind === 'unschedulable' && out.postFilter?.victims?.map((p) => p.metadata.name)).toEqual([
      'p-lo',
    ]);
    // (a fresh scheduler: vip's nomination would otherwise count on n1 for the next pods)
    const core2 = new SchedulerCore({ nodes: [node('n1')], pods, seed: 1 });
    const two = core2.schedule(makePod('vip2').priority(100).req({ cpu: '2' }).obj());
    expect(
      two.kind === 'unschedulable' && two.postFilter?.victims?.map((p) => p.metadata.name).sort(),
    ).toEqual(['p-lo', 'p-mid']);
    // with vip nominated to n1, a second vip needs all three pods gone
    const three = core.schedule(makePod('vip3').priority(100).req({ cpu: '2' }).obj());
    expect(
      three.kind === 'unschedulable' && three.postFilter?.victims?.map((p) => p.metadata.name).sort(),
    ).toEqual(['p-hi', 'p-lo', 'p-mid']);
    // equal priority is not preemptible
    const eq = core2.schedule(makePod('same').priority(10).req({ cpu: '1' }).obj());
    expect(eq.kind === 'unschedulable' && eq.fitError.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
  });

  it('does not preempt when removing every lower-priority pod still leaves the node too small', () => {
    // 3 cpu: the higher-priority pod's 2 stay, so 1 lower-priority cpu freed is not enough for 2
    const core = new SchedulerCore({
      nodes: [node('n1')],
      pods: [
        makePod('x').node('n1').priority(1).req({ cpu: '1' }).obj(),
        makePod('keep').node('n1').priority(1000).req({ cpu: '2' }).obj(),
      ],
      seed: 1,
    });
    const out = core.schedule(makePod('huge').priority(100).req({ cpu: '2' }).obj());
    expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
    );
  });

  it("a request larger than the node's whole allocatable is not helpful (fit.go UnschedulableAndUnresolvable)", () => {
    const core = new SchedulerCore({
      nodes: [node('n1')],
      pods: [makePod('x').node('n1').priority(1).req({ cpu: '1' }).obj()],
      seed: 1,
    });
    const out = core.schedule(makePod('huge').priority(100).req({ cpu: '4' }).obj());
    expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    );
  });

  it('anti-affinity: evicting the conflicting low-priority pod makes room (InterPodAffinity RemovePod)', () => {
    const nodes = [node('n1'), node('n2')];
    const pods = [
      makePod('web-old').node('n1').label('app', 'web').priority(1).obj(),
      makePod('web-keep').node('n2').label('app', 'web').priority(1000).obj(),
    ];
    const core = new SchedulerCore({ nodes, pods, seed: 1 });
    const pod = makePod('web-new')
      .label('app', 'web')
      .priority(100)
      .podAntiAffinity({
        labelSelector: { matchLabels: { app: 'web' } },
        topologyKey: 'kubernetes.io/hostname',
      })
      .obj();
    const out = core.schedule(pod);
    expect(out.kind).toBe('unschedulable');
    if (out.kind !== 'unschedulable') return;
    expect(
      out.fitError.message.startsWith(
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
      ),
    ).toBe(true);
    expect(out.postFilter?.nominatedNodeName).toBe('n1');
    expect(out.postFilter?.victims?.map((p) => p.metadata.name)).toEqual(['web-old']);
  });
});

describe('nominated pods', () => {
  const node = (name: string) =>
    makeNode(name)
      .label('kubernetes.io/hostname', name)
      .capacity({ cpu: '2', memory: '8Gi', pods: '110' })
      .obj();

  it('the room a preemption freed is kept for the nominated pod (RunFilterPluginsWithNominatedPods)', () => {
    const core = new SchedulerCore({
      nodes: [node('n1')],
      pods: [makePod('victim').node('n1').priority(1).req({ cpu: '2' }).obj()],
      seed: 1,
    });
    const vip = makePod('vip').priority(100).req({ cpu: '2' }).obj();
    const out = core.schedule(vip);
    expect(out.kind === 'unschedulable' && out.postFilter?.nominatedNodeName).toBe('n1');
    // the victim goes away (the loop deletes it); vip has not been retried yet
    core.snapshot.removePod('default/victim');
    const low = core.schedule(makePod('low').priority(10).req({ cpu: '1' }).obj());
    expect(
      low.kind === 'unschedulable' &&
        low.fitError.message.startsWith('0/1 nodes are available: 1 Insufficient cpu.'),
    ).toBe(true);
    // an equally or more important pod is not held back by a less important nomination
    const top = core.schedule(makePod('top').priority(1000).req({ cpu: '1' }).obj());
    expect(top.kind).toBe('scheduled');
    // the nominated pod itself fits, and its nomination ends when it is assumed
    const retry = core.schedule(vip);
    expect(retry.kind === 'scheduled' && retry.nodeName).toBe('n1');
    if (retry.kind === 'scheduled') core.reserveAndAssume(retry);
    expect(core.snapshot.nominator.size).toBe(0);
  });
});

describe('calculateNumCandidates (default_preemption_test.go)', () => {
  const cases: [string, number, number, number, number][] = [
    ['no nodes', 0, 50, 10, 0],
    ['nodes*minCandidateNodesPercentage >= minCandidateNodesAbsolute', 100, 50, 10, 50],
    ['nodes*minCandidateNodesPercentage < minCandidateNodesAbsolute', 100, 5, 10, 10],
    [
      'nodes*minCandidateNodesPercentage < minCandidateNodesAbsolute and numNodes < minCandidateNodesAbsolute',
      8,
      5,
      10,
      8,
    ],
  ];
  for (const [name, nodes, pct, abs, want] of cases) {
    it(name, () => {
      const core = new SchedulerCore({ seed: 1 });
      const pl = new DefaultPreemption(
        { minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs },
        core.frameworkFor(makePod('x').obj())!.handle,
      );
      expect(pl.numCandidates(nodes)).toBe(want);
    });
  }
  it('rejects invalid args like ValidateDefaultPreemptionArgs', () => {
    const h = new SchedulerCore({ seed: 1 }).frameworkFor(makePod('x').obj())!.handle;
    expect(
      () => new DefaultPreemption({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 }, h),
    ).toThrow('cannot be both zero');
    expect(() => new DefaultPreemption({ minCandidateNodesPercentage: 101 }, h)).toThrow(
      'not in valid range [0, 100]',
    );
  });
});

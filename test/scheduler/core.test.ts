// End-to-end cycles through SchedulerCore with the engine's kernels: FitError text, selection,
// sampling window vs general path, preemption, js vs wasm kernels.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/api/types.js';
import { SchedulerCore } from '../../src/scheduler/scheduler.js';
import { makeNode, makePod, sel } from '../helpers/builders.js';

const CP = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' as const };
const worker = (name: string, cpu = '2') =>
  makeNode(name).label('kubernetes.io/hostname', name).capacity({ cpu, memory: '8Gi', pods: '110' }).obj();

function fiveNodes(): { nodes: Node[]; pods: Pod[] } {
  const nodes = [
    worker('w1'),
    worker('w2'),
    worker('w3'),
    makeNode('cp1')
      .label('kubernetes.io/hostname', 'cp1')
      .taint(CP)
      .capacity({ cpu: '4', memory: '8Gi', pods: '110' })
      .obj(),
    makeNode('cp2')
      .label('kubernetes.io/hostname', 'cp2')
      .taint(CP)
      .capacity({ cpu: '4', memory: '8Gi', pods: '110' })
      .obj(),
  ];
  const pods = ['w1', 'w2', 'w3'].map((n) => makePod(`busy-${n}`).node(n).req({ cpu: '1500m' }).obj());
  return { nodes, pods };
}

describe('SchedulerCore end to end', () => {
  for (const kernel of ['js', 'wasm'] as const) {
    it(`FitError message matches upstream's format (${kernel} kernel)`, () => {
      const core = new SchedulerCore({ ...fiveNodes(), kernel, seed: 1 });
      const out = core.schedule(makePod('web').req({ cpu: '1' }).obj());
      expect(out.kind).toBe('unschedulable');
      if (out.kind !== 'unschedulable') return;
      expect(out.fitError.message).toBe(
        '0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu. ' +
          'preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.',
      );
    });
  }

  it('picks the least allocated node and honours tolerations', () => {
    const { nodes, pods } = fiveNodes();
    const core = new SchedulerCore({ nodes, pods: pods.slice(0, 2), seed: 1 });
    const out = core.schedule(makePod('web').req({ cpu: '1' }).obj());
    expect(out.kind === 'scheduled' && out.nodeName).toBe('w3');
    const tol = core.schedule(
      makePod('t')
        .req({ cpu: '3' })
        .toleration({ key: CP.key, operator: 'Exists', effect: 'NoSchedule' })
        .obj(),
    );
    expect(tol.kind === 'scheduled' && ['cp1', 'cp2'].includes(tol.nodeName)).toBe(true);
  });

  it('preempts the lowest-priority pods on one node', () => {
    const { nodes, pods } = fiveNodes();
    const core = new SchedulerCore({
      nodes,
      pods: pods.map((p, i) => ({ ...p, spec: { ...p.spec, priority: i === 1 ? 5 : 10 } })),
      seed: 1,
    });
    const out = core.schedule(makePod('vip').priority(100).req({ cpu: '1' }).obj());
    expect(out.kind).toBe('unschedulable');
    if (out.kind !== 'unschedulable') return;
    expect(out.postFilter?.nominatedNodeName).toBe('w2');
    expect(out.postFilter?.victims?.map((v) => v.metadata.name)).toEqual(['busy-w2']);
    // the what-if left the cluster as it was
    expect(core.snapshot.get('w2')!.pods.length).toBe(1);
  });

  it('preemptionPolicy Never is reported like upstream', () => {
    const core = new SchedulerCore({ ...fiveNodes(), seed: 1 });
    const p = makePod('np').priority(100).req({ cpu: '1' }).obj();
    p.spec.preemptionPolicy = 'Never';
    const out = core.schedule(p);
    expect(out.kind === 'unschedulable' && out.fitError.message).toMatch(
      /Insufficient cpu\. preemption: not eligible due to preemptionPolicy=Never\.$/,
    );
  });

  it('a sequence of placements spreads with PodTopologySpread and respects anti-affinity', () => {
    const nodes = ['a', 'b', 'c'].flatMap((z) =>
      [1, 2].map((i) =>
        makeNode(`${z}${i}`)
          .label('topology.kubernetes.io/zone', z)
          .label('kubernetes.io/hostname', `${z}${i}`)
          .capacity({ cpu: '8', memory: '16Gi', pods: '110' })
          .obj(),
      ),
    );
    const core = new SchedulerCore({ nodes, seed: 7 });
    const zones: string[] = [];
    for (let i = 0; i < 6; i++) {
      const pod = makePod(`web-${i}`)
        .label('app', 'web')
        .req({ cpu: '100m' })
        .spreadConstraint(1, 'topology.kubernetes.io/zone', 'DoNotSchedule', sel().label('app', 'web').obj())
        .podAntiAffinity({
          labelSelector: { matchLabels: { app: 'web' } },
          topologyKey: 'kubernetes.io/hostname',
        })
        .obj();
      const out = core.schedule(pod);
      expect(out.kind).toBe('scheduled');
      if (out.kind !== 'scheduled') return;
      expect(core.reserveAndAssume(out)).toBeNull();
      zones.push(out.nodeName[0]);
    }
    expect(zones.sort().join('')).toBe('aabbcc');
    const seventh = core.schedule(
      makePod('web-6')
        .label('app', 'web')
        .podAntiAffinity({
          labelSelector: { matchLabels: { app: 'web' } },
          topologyKey: 'kubernetes.io/hostname',
        })
        .obj(),
    );
    expect(seventh.kind === 'unschedulable' && seventh.fitError.message).toMatch(
      /^0\/6 nodes are available: 6 node\(s\) didn't match pod anti-affinity rules\./,
    );
  });

  it('the same seed gives the same placements; ties are broken among equal nodes', () => {
    const run = (seed: number) => {
      const core = new SchedulerCore({
        nodes: [worker('n1', '4'), worker('n2', '4'), worker('n3', '4'), worker('n4', '4')],
        seed,
      });
      const placed: string[] = [];
      for (let i = 0; i < 8; i++) {
        const out = core.schedule(makePod(`p${i}`).obj());
        if (out.kind !== 'scheduled') throw new Error('unschedulable');
        core.reserveAndAssume(out);
        placed.push(out.nodeName);
      }
      return placed.join(',');
    };
    expect(run(3)).toBe(run(3));
    const seen = new Set([1, 2, 3, 4, 5, 6].map((s) => run(s).split(',')[0]));
    expect(seen.size).toBeGreaterThan(1);
  });
});

/**
 * The HPA's arithmetic against upstream's tables: replica_calculator_test.go (v1.34) rows for
 * Resource utilization and Pods metrics, transcribed as data (two containers per pod as upstream,
 * so a pod requests 2 × 1.0 CPU and reports 2 × the level), and the scale-rate rules of
 * horizontal.go worked by hand.
 *
 * Left out of replica_calculator_test.go: ContainerResource rows (per-container samples are not
 * modelled: a pod reports one value), Object and External metric rows (not modelled), and the
 * rows that test metrics-client errors.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/types.js';
import { HpaMemory, scaleDownLimit, scaleRules, scaleUpLimit } from '../../src/controllers/hpa.js';
import {
  plainMetricReplicas,
  resourceReplicas,
  type Sample,
} from '../../src/controllers/replica-calculator.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const COOL = NOW - 10 * 60_000; // started long before: outside the 5 min CPU initialization period
const HOT = NOW - 10_000; // started (and ready) 10 s ago: its sample is within the 30 s window

interface Row {
  current: number;
  want: number;
  levels: number[];
  readiness?: boolean[];
  phase?: Pod['status'] extends infer S ? (S extends { phase?: infer P } ? P[] : never) : never;
  deleting?: boolean[];
  start?: number[];
  /** pods beyond levels.length have no sample */
  pods?: number;
  target: number;
  utilization?: number;
}

function pods(r: Row): { pods: Pod[]; samples: Map<string, Sample>; requests: Map<string, number> } {
  const n = r.pods ?? Math.max(r.levels.length, r.readiness?.length ?? 0, r.phase?.length ?? 0);
  const out: Pod[] = [];
  const samples = new Map<string, Sample>();
  const requests = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const name = `test-pod-${i}`;
    const start = r.start?.[i] ?? COOL;
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'test-namespace',
        deletionTimestamp: r.deleting?.[i] ? new Date(NOW).toISOString() : undefined,
      },
      spec: { containers: [] },
      status: {
        phase: r.phase?.[i] ?? 'Running',
        startTime: new Date(start).toISOString(),
        conditions: [
          {
            type: 'Ready',
            status: (r.readiness?.[i] ?? true) ? 'True' : 'False',
            lastTransitionTime: new Date(start).toISOString(),
          },
        ],
      },
    });
    requests.set(name, 2000);
    if (i < r.levels.length)
      samples.set(name, { value: 2 * r.levels[i], timestampMs: NOW, windowMs: 30_000 });
  }
  return { pods: out, samples, requests };
}

const cpuRows: Record<string, Row> = {
  TestReplicaCalcScaleUp: { current: 3, want: 5, levels: [300, 500, 700], target: 30, utilization: 50 },
  TestReplicaCalcScaleUpUnreadyLessScale: {
    current: 3,
    want: 4,
    readiness: [false, true, true],
    levels: [300, 500, 700],
    target: 30,
    utilization: 60,
  },
  TestReplicaCalcScaleUpHotCpuLessScale: {
    current: 3,
    want: 4,
    start: [HOT, COOL, COOL],
    levels: [300, 500, 700],
    target: 30,
    utilization: 60,
  },
  TestReplicaCalcScaleUpUnreadyNoScale: {
    current: 3,
    want: 3,
    readiness: [true, false, false],
    levels: [400, 500, 700],
    target: 30,
    utilization: 40,
  },
  TestReplicaCalcScaleHotCpuNoScale: {
    current: 3,
    want: 3,
    readiness: [true, false, false],
    start: [COOL, HOT, HOT],
    levels: [400, 500, 700],
    target: 30,
    utilization: 40,
  },
  TestReplicaCalcScaleUpIgnoresFailedPods: {
    current: 2,
    want: 4,
    readiness: [true, true, false, false],
    phase: ['Running', 'Running', 'Failed', 'Failed'],
    levels: [500, 700],
    target: 30,
    utilization: 60,
  },
  TestReplicaCalcScaleUpIgnoresDeletionPods: {
    current: 2,
    want: 4,
    readiness: [true, true, false, false],
    deleting: [false, false, true, true],
    levels: [500, 700],
    target: 30,
    utilization: 60,
  },
  TestReplicaCalcScaleDown: {
    current: 5,
    want: 3,
    levels: [100, 300, 500, 250, 250],
    target: 50,
    utilization: 28,
  },
};

describe('HPA replica calculator: upstream replica_calculator_test.go (Resource cpu)', () => {
  for (const [name, r] of Object.entries(cpuRows))
    it(name, () => {
      const p = pods(r);
      const got = resourceReplicas(r.current, r.target, 'cpu', p.pods, p.samples, p.requests, NOW);
      expect(got.replicas).toBe(r.want);
      expect(got.utilization).toBe(r.utilization);
    });
});

describe('HPA replica calculator: upstream replica_calculator_test.go (Pods metrics)', () => {
  const rows: [string, number, number, number[], number, boolean[]?, number[]?][] = [
    ['TestReplicaCalcScaleUpCM', 3, 4, [20000, 10000, 30000], 15000],
    [
      'TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale',
      3,
      6,
      [50000, 10000, 30000],
      15000,
      [true, true, false],
      [COOL, COOL, HOT],
    ],
    [
      'TestReplicaCalcScaleUpCMUnreadyHotCpuScaleWouldScaleDown',
      3,
      7,
      [50000, 15000, 30000],
      15000,
      [false, true, false],
      [HOT, COOL, HOT],
    ],
    ['TestReplicaCalcScaleDownCM', 5, 3, [12000, 12000, 12000, 12000, 12000], 20000],
  ];
  for (const [name, current, want, levels, target, readiness, start] of rows)
    it(name, () => {
      // Pods metrics are not per container: the level is the pod's value
      const p = pods({ current, want, levels: levels.map((l) => l / 2), readiness, start, target });
      expect(plainMetricReplicas(current, target, p.pods, p.samples, NOW).replicas).toBe(want);
    });
});

describe('HPA tolerance', () => {
  it('within 10 % of the target nothing changes, beyond it the count moves', () => {
    const at = (level: number) => {
      const p = pods({ current: 4, want: 0, levels: [level, level, level, level], target: 50 });
      return resourceReplicas(4, 50, 'cpu', p.pods, p.samples, p.requests, NOW).replicas;
    };
    expect(at(540)).toBe(4); // 54 % of a 50 % target: ratio 1.08, within tolerance
    // 55 %: ratio 1.1, and |1 − 1.1| is 0.10000000000000009 in float64 — beyond the tolerance, as in Go
    expect(at(550)).toBe(5);
    expect(at(560)).toBe(5); // ratio 1.12 → ceil(4.48)
    expect(at(450)).toBe(4); // ratio 0.9
    expect(at(440)).toBe(4); // ratio 0.88 → ceil(3.52) = 4
    expect(at(370)).toBe(3); // ratio 0.74 → ceil(2.96)
  });
});

describe('HPA scaling rules (horizontal.go)', () => {
  const up = scaleRules(undefined, true);
  const down = scaleRules(undefined, false);
  it('the default rules: up by max(4 pods, 100 %) per 15 s, down by 100 % per 15 s, 300 s down window', () => {
    expect(up).toEqual({
      stabilizationMs: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    expect(down.stabilizationMs).toBe(300_000);
    expect(scaleUpLimit(3, [], [], up, NOW)).toBe(7); // max(3 + 4, ceil(3 × 2) = 6)
    expect(scaleUpLimit(10, [], [], up, NOW)).toBe(20);
    expect(scaleDownLimit(10, [], [], down, NOW)).toBe(0);
  });
  it('events within the period count against the policy; Min picks the smaller change', () => {
    const rules = scaleRules(
      {
        selectPolicy: 'Min',
        policies: [
          { type: 'Pods', value: 2, periodSeconds: 60 },
          { type: 'Percent', value: 50, periodSeconds: 60 },
        ],
      },
      true,
    );
    // 10 replicas now, 2 added 30 s ago: the period started at 8 → min(8 + 2, ceil(8 × 1.5))
    const events = [{ change: 2, atMs: NOW - 30_000, outdated: false }];
    expect(scaleUpLimit(10, events, [], rules, NOW)).toBe(10);
    // an event older than the period no longer counts
    expect(scaleUpLimit(10, [{ change: 2, atMs: NOW - 61_000, outdated: false }], [], rules, NOW)).toBe(12);
    expect(scaleUpLimit(10, [], [], { ...rules, selectPolicy: 'Disabled' }, NOW)).toBe(10);
  });
  it('no behavior: a recommendation is held for the 5 min downscale window; scale-up capped at max(2×, 4)', () => {
    const m = new HpaMemory();
    expect(m.normalize(5, 8, 1, 20, NOW).desired).toBe(8);
    const held = m.normalize(8, 2, 1, 20, NOW + 60_000);
    expect(held.desired).toBe(8);
    expect(held.ableToScale[0]).toBe('ScaleDownStabilized');
    expect(m.normalize(8, 2, 1, 20, NOW + 301_000).desired).toBe(2);
    const capped = new HpaMemory().normalize(3, 40, 1, 50, NOW);
    expect(capped.desired).toBe(6);
    expect(capped.limited).toEqual([
      true,
      'ScaleUpLimit',
      'the desired replica count is increasing faster than the maximum scale rate',
    ]);
    expect(new HpaMemory().normalize(3, 40, 1, 5, NOW).limited[1]).toBe('TooManyReplicas');
    expect(new HpaMemory().normalize(3, 0, 2, 5, NOW)).toMatchObject({
      desired: 2,
      limited: [true, 'TooFewReplicas', expect.any(String)],
    });
  });
  it('behavior: a scale-down limited to 1 pod per minute, then the next minute another', () => {
    const m = new HpaMemory();
    const downRules = scaleRules(
      { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
      false,
    );
    const n = m.normalizeWithBehaviors(10, 4, 1, 20, up, downRules, NOW);
    expect(n.desired).toBe(9);
    expect(n.limited[1]).toBe('ScaleDownLimit');
    m.storeScaleEvent(10, 9, up, downRules, NOW);
    expect(m.normalizeWithBehaviors(9, 4, 1, 20, up, downRules, NOW + 15_000).desired).toBe(9);
    expect(m.normalizeWithBehaviors(9, 4, 1, 20, up, downRules, NOW + 61_000).desired).toBe(8);
  });
});

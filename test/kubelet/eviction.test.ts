// The kubelet's node-pressure eviction rules against upstream's own test tables, transcribed as data
// from pkg/kubelet/eviction/helpers_test.go (v1.34): TestParseThresholdConfig, TestOrderedByExceeds-
// RequestMemory, TestOrderedByPriority, TestOrderedByMemory, TestOrderedByPriorityMemory,
// TestOrderedByPriorityProcess, TestOrderedbyDisk (as exceed + disk), TestOrderedByPriorityDisk,
// TestThresholdsMet, TestPercentageThresholdsMet, TestThresholdsFirstObservedAt,
// TestThresholdsMetGracePeriod, TestNodeConditions, TestNodeConditionsLastObservedAt,
// TestNodeConditionsObservedSince, TestSortByEvictionPriority, TestParsePercentage.
import { describe, expect, it } from 'vitest';
import { bytes } from '../../src/api/quantity.js';
import { parseDuration } from '../../src/util/scenario-input.js';
import {
  byEvictionPriority,
  COMPARATORS,
  nodeConditions,
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  parsePercentage,
  parseThresholdConfig,
  type RankedPod,
  rankForEviction,
  type Threshold,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
} from '../../src/kubelet/eviction.js';

const Mi = 1024 ** 2;
const Gi = 1024 ** 3;
const parse = (c: { hard?: string; soft?: string; softGracePeriod?: string; minReclaim?: string }) =>
  parseThresholdConfig(c, bytes, (d, w) => parseDuration(d, w));
const th = (
  signal: Threshold['signal'],
  value: Threshold['value'],
  gracePeriodMs = 0,
  minReclaim: Threshold['value'] = { quantity: 0 },
): Threshold => ({
  signal,
  operator: 'LessThan',
  value,
  gracePeriodMs,
  minReclaim,
});

describe('ParseThresholdConfig (TestParseThresholdConfig)', () => {
  const ok: [string, Parameters<typeof parse>[0], Threshold[]][] = [
    ['no values', {}, []],
    [
      'all flag values',
      {
        hard: 'memory.available<150Mi',
        soft: 'memory.available<300Mi',
        softGracePeriod: 'memory.available=30s',
        minReclaim: 'memory.available=0',
      },
      [
        th('memory.available', { quantity: 150 * Mi }),
        th('memory.available', { quantity: 300 * Mi }, 30_000),
      ],
    ],
    [
      'all flag values in percentages',
      {
        hard: 'memory.available<10%',
        soft: 'memory.available<30%',
        softGracePeriod: 'memory.available=30s',
        minReclaim: 'memory.available=5%',
      },
      [
        th('memory.available', { percentage: 0.1 }, 0, { percentage: 0.05 }),
        th('memory.available', { percentage: 0.3 }, 30_000, { percentage: 0.05 }),
      ],
    ],
    [
      'disk flag values',
      {
        hard: 'imagefs.available<150Mi,nodefs.available<100Mi',
        soft: 'imagefs.available<300Mi,nodefs.available<200Mi',
        softGracePeriod: 'imagefs.available=30s,nodefs.available=30s',
        minReclaim: 'imagefs.available=2Gi,nodefs.available=1Gi',
      },
      [
        th('imagefs.available', { quantity: 150 * Mi }, 0, { quantity: 2 * Gi }),
        th('nodefs.available', { quantity: 100 * Mi }, 0, { quantity: Gi }),
        th('imagefs.available', { quantity: 300 * Mi }, 30_000, { quantity: 2 * Gi }),
        th('nodefs.available', { quantity: 200 * Mi }, 30_000, { quantity: Gi }),
      ],
    ],
    [
      'disk flag values in percentages',
      {
        hard: 'imagefs.available<15%,nodefs.available<10.5%',
        soft: 'imagefs.available<30%,nodefs.available<20.5%',
        softGracePeriod: 'imagefs.available=30s,nodefs.available=30s',
        minReclaim: 'imagefs.available=10%,nodefs.available=5%',
      },
      [
        th('imagefs.available', { percentage: 0.15 }, 0, { percentage: 0.1 }),
        th('nodefs.available', { percentage: 0.105 }, 0, { percentage: 0.05 }),
        th('imagefs.available', { percentage: 0.3 }, 30_000, { percentage: 0.1 }),
        th('nodefs.available', { percentage: 0.205 }, 30_000, { percentage: 0.05 }),
      ],
    ],
  ];
  it.each(ok)('%s', (_name, cfg, want) => {
    const got = parse(cfg);
    expect(got.length).toBe(want.length);
    for (const w of want) {
      const g = got.find((x) => x.signal === w.signal && x.gracePeriodMs === w.gracePeriodMs)!;
      expect(g.value.quantity ?? g.value.percentage).toBeCloseTo(w.value.quantity ?? w.value.percentage!, 9);
      expect(g.minReclaim.quantity ?? g.minReclaim.percentage).toBeCloseTo(
        w.minReclaim.quantity ?? w.minReclaim.percentage!,
        9,
      );
    }
  });

  // the error rows ("inode flag values" is left out: inode signals are not modelled)
  it.each([
    ['invalid-signal', { hard: 'mem.available<150Mi' }],
    ['hard-signal-negative', { hard: 'memory.available<-150Mi' }],
    ['hard-signal-negative-percentage', { hard: 'memory.available<-15%' }],
    ['soft-signal-negative', { soft: 'memory.available<-150Mi' }],
    ['duplicate-signal', { hard: 'memory.available<150Mi,memory.available<100Mi' }],
    ['valid-and-invalid-signal', { hard: 'memory.available<150Mi,invalid.foo<150Mi' }],
    ['soft-no-grace-period', { soft: 'memory.available<150Mi' }],
    ['soft-neg-grace-period', { soft: 'memory.available<150Mi', softGracePeriod: 'memory.available=-30s' }],
    ['neg-reclaim', { minReclaim: 'memory.available=-300Mi' }],
    ['duplicate-reclaim', { minReclaim: 'memory.available=-300Mi,memory.available=-100Mi' }],
  ])('%s is an error', (_name, cfg) => {
    expect(() => parse(cfg)).toThrow();
  });
});

describe('TestParsePercentage', () => {
  it.each([
    ['blah', null],
    ['25.5%', 0.255],
    ['foo%', null],
    ['12%345', null],
  ])('%s', (input, want) => {
    if (want === null) expect(() => parsePercentage(input)).toThrow();
    else expect(parsePercentage(input)).toBeCloseTo(want, 9);
  });
});

/** newPod + newPodMemoryStats / newPodDiskStats / newPodProcessStats of the upstream tests */
const pod = (
  name: string,
  priority: number,
  o: { memReq?: number; mem?: number; diskReq?: number; disk?: number; pids?: number } = {},
): RankedPod => ({
  name,
  priority,
  requests: { memory: o.memReq ?? 0, 'ephemeral-storage': o.diskReq ?? 0 },
  usage: { memory: o.mem ?? 0, 'ephemeral-storage': o.disk ?? 0, pids: o.pids ?? 0 },
});
const names = (ps: RankedPod[]) => ps.map((p) => p.name);
const sortBy = (ps: RankedPod[], ...cmps: ((a: RankedPod, b: RankedPod) => number)[]) =>
  names([...ps].sort(COMPARATORS.orderedBy(...cmps)));
// upstream's defaultPriority, lowPriority, highPriority
const DEF = 0,
  LOW = -1,
  HIGH = 1;

describe('pod ranking', () => {
  it('TestOrderedByExceedsRequestMemory', () => {
    const below = pod('below-requests', -1, { memReq: 200 * Mi, mem: 199 * Mi });
    const exceeds = pod('exceeds-requests', 1, { memReq: 100 * Mi, mem: 101 * Mi });
    expect(sortBy([below, exceeds], COMPARATORS.exceedMemoryRequests)).toEqual([
      'exceeds-requests',
      'below-requests',
    ]);
  });

  it('TestOrderedByPriority', () => {
    const low = pod('low-priority', -134);
    const medium = pod('medium-priority', 1, { memReq: 100 * Mi });
    const high = pod('high-priority', 12534, { memReq: 200 * Mi });
    expect(sortBy([high, medium, low], COMPARATORS.priority)).toEqual([
      'low-priority',
      'medium-priority',
      'high-priority',
    ]);
  });

  it('TestOrderedByMemory', () => {
    const ps = [
      pod('best-effort-high', DEF, { mem: 500 * Mi }),
      pod('best-effort-low', DEF, { mem: 300 * Mi }),
      pod('burstable-high', DEF, { memReq: 100 * Mi, mem: 800 * Mi }),
      pod('burstable-low', DEF, { memReq: 100 * Mi, mem: 300 * Mi }),
      pod('guaranteed-high', DEF, { memReq: Gi, mem: 800 * Mi }),
      pod('guaranteed-low', DEF, { memReq: Gi, mem: 200 * Mi }),
    ];
    expect(sortBy(ps, COMPARATORS.memory)).toEqual([
      'burstable-high',
      'best-effort-high',
      'best-effort-low',
      'burstable-low',
      'guaranteed-high',
      'guaranteed-low',
    ]);
  });

  const priorityMemory = [
    pod('above-requests-low-priority-high-usage', LOW, { mem: 500 * Mi }),
    pod('above-requests-low-priority-low-usage', LOW, { mem: 50 * Mi }),
    pod('above-requests-high-priority-high-usage', HIGH, { memReq: 100 * Mi, mem: 600 * Mi }),
    pod('above-requests-high-priority-low-usage', HIGH, { memReq: 100 * Mi, mem: 150 * Mi }),
    pod('below-requests-low-priority-high-usage', LOW, { memReq: Gi, mem: 800 * Mi }),
    pod('below-requests-low-priority-low-usage', LOW, { memReq: Gi, mem: 200 * Mi }),
    pod('below-requests-high-priority-high-usage', HIGH, { memReq: Gi, mem: 800 * Mi }),
    pod('below-requests-high-priority-low-usage', HIGH, { memReq: Gi, mem: 200 * Mi }),
  ];
  it('TestOrderedByPriorityMemory (rankMemoryPressure: exceeds requests, priority, usage above requests)', () => {
    const reversed = [...priorityMemory].reverse();
    expect(names(rankForEviction(reversed, 'memory.available'))).toEqual(names(priorityMemory));
  });

  it('TestOrderedByPriorityProcess (rankPIDPressure: priority, processes)', () => {
    const ps = [
      pod('low-priority-high-usage', LOW, { pids: 20 }),
      pod('low-priority-low-usage', LOW, { pids: 6 }),
      pod('high-priority-high-usage', HIGH, { pids: 20 }),
      pod('high-priority-low-usage', HIGH, { pids: 5 }),
    ];
    expect(names(rankForEviction([...ps].reverse(), 'pid.available'))).toEqual(names(ps));
  });

  it('TestOrderedbyDisk (usage above the ephemeral-storage request)', () => {
    // rootfs + logs + local volume summed, as upstream's comments add them up
    const ps = [
      pod('best-effort-high', DEF, { disk: 300 * Mi }),
      pod('best-effort-low', DEF, { disk: 100 * Mi }),
      pod('burstable-high', DEF, { diskReq: 100 * Mi, disk: 350 * Mi }),
      pod('burstable-low', DEF, { diskReq: 100 * Mi, disk: 110 * Mi }),
      pod('guaranteed-high', DEF, { diskReq: 400 * Mi, disk: 375 * Mi }),
      pod('guaranteed-low', DEF, { diskReq: 400 * Mi, disk: 120 * Mi }),
    ];
    expect(sortBy(ps, COMPARATORS.disk)).toEqual([
      'best-effort-high',
      'burstable-high',
      'best-effort-low',
      'burstable-low',
      'guaranteed-high',
      'guaranteed-low',
    ]);
  });

  it('TestOrderedByPriorityDisk (rankDiskPressure)', () => {
    const ps = [
      pod('above-requests-low-priority-high-usage', LOW, { disk: 500 * Mi }),
      pod('above-requests-low-priority-low-usage', LOW, { disk: 50 * Mi }),
      pod('above-requests-high-priority-high-usage', HIGH, { diskReq: 100 * Mi, disk: 600 * Mi }),
      pod('above-requests-high-priority-low-usage', HIGH, { diskReq: 100 * Mi, disk: 150 * Mi }),
      pod('below-requests-low-priority-high-usage', LOW, { diskReq: Gi, disk: 800 * Mi }),
      pod('below-requests-low-priority-low-usage', LOW, { diskReq: Gi, disk: 200 * Mi }),
      pod('below-requests-high-priority-high-usage', HIGH, { diskReq: Gi, disk: 800 * Mi }),
      pod('below-requests-high-priority-low-usage', HIGH, { diskReq: Gi, disk: 200 * Mi }),
    ];
    expect(names(rankForEviction([...ps].reverse(), 'nodefs.available'))).toEqual(names(ps));
  });
});

describe('thresholds', () => {
  const hard = th('memory.available', { quantity: Gi }, 0, { quantity: 500 * Mi });
  it.each([
    ['empty', false, [], {}, []],
    [
      'threshold-met-memory',
      false,
      [hard],
      { 'memory.available': { available: 500 * Mi, capacity: 0 } },
      [hard],
    ],
    ['threshold-not-met', false, [hard], { 'memory.available': { available: 2 * Gi, capacity: 0 } }, []],
    [
      'threshold-met-with-min-reclaim',
      true,
      [hard],
      { 'memory.available': { available: 1.05 * Gi, capacity: 0 } },
      [hard],
    ],
    [
      'threshold-not-met-with-min-reclaim',
      true,
      [hard],
      { 'memory.available': { available: 2 * Gi, capacity: 0 } },
      [],
    ],
  ] as const)('TestThresholdsMet: %s', (_n, enforce, ts, obs, want) => {
    expect(thresholdsMet([...ts], obs, enforce)).toEqual([...want]);
  });

  const specific = [
    th('memory.available', { percentage: 0.2 }, 0, { percentage: 0.05 }),
    th('nodefs.available', { percentage: 0.3 }),
  ];
  const mem = (a: number) => ({ available: a * Mi, capacity: 1000 * Mi });
  const fs = (a: number) => ({ available: a * Gi, capacity: 1000 * Gi });
  it.each([
    ['BothMet', false, { 'memory.available': mem(100), 'nodefs.available': fs(100) }, specific],
    ['NoneMet', false, { 'memory.available': mem(300), 'nodefs.available': fs(400) }, []],
    ['DiskMet', false, { 'memory.available': mem(300), 'nodefs.available': fs(100) }, [specific[1]]],
    ['MemoryMet', false, { 'memory.available': mem(100), 'nodefs.available': fs(400) }, [specific[0]]],
    ['MemoryMetWithMinReclaim', true, { 'memory.available': mem(225) }, [specific[0]]],
    ['MemoryNotMetWithMinReclaim', true, { 'memory.available': mem(300) }, []],
  ] as const)('TestPercentageThresholdsMet: %s', (_n, enforce, obs, want) => {
    expect(thresholdsMet(specific, obs, enforce)).toEqual([...want]);
  });

  const now = 1_000_000;
  const hardT = th('memory.available', { quantity: Gi });
  it('TestThresholdsFirstObservedAt', () => {
    expect(thresholdsFirstObservedAt([], new Map(), now)).toEqual(new Map());
    expect(thresholdsFirstObservedAt([hardT], new Map(), now)).toEqual(new Map([[hardT, now]]));
    expect(thresholdsFirstObservedAt([hardT], new Map([[hardT, now - 60_000]]), now)).toEqual(
      new Map([[hardT, now - 60_000]]),
    );
  });

  it('TestThresholdsMetGracePeriod', () => {
    const soft = th('memory.available', { quantity: 2 * Gi }, 60_000);
    const old = now - 120_000;
    expect(thresholdsMetGracePeriod(new Map(), now)).toEqual([]);
    expect(thresholdsMetGracePeriod(new Map([[hardT, now]]), now)).toEqual([hardT]);
    expect(thresholdsMetGracePeriod(new Map([[soft, now]]), now)).toEqual([]);
    expect(thresholdsMetGracePeriod(new Map([[soft, old]]), now)).toEqual([soft]);
  });

  it('TestNodeConditions, TestNodeConditionsLastObservedAt, TestNodeConditionsObservedSince', () => {
    expect(nodeConditions([])).toEqual([]);
    expect(nodeConditions([hardT])).toEqual(['MemoryPressure']);
    const old = now - 60_000;
    expect(nodeConditionsLastObservedAt(['MemoryPressure'], new Map(), now)).toEqual(
      new Map([['MemoryPressure', now]]),
    );
    expect(nodeConditionsLastObservedAt(['MemoryPressure'], new Map([['MemoryPressure', old]]), now)).toEqual(
      new Map([['MemoryPressure', now]]),
    );
    expect(nodeConditionsLastObservedAt([], new Map([['MemoryPressure', old]]), now)).toEqual(
      new Map([['MemoryPressure', old]]),
    );
    expect(nodeConditionsObservedSince(new Map([['MemoryPressure', old]]), 120_000, now)).toEqual([
      'MemoryPressure',
    ]);
    expect(nodeConditionsObservedSince(new Map([['MemoryPressure', old]]), 30_000, now)).toEqual([]);
  });

  it('TestSortByEvictionPriority: memory first', () => {
    const ts = [th('nodefs.available', {}), th('pid.available', {}), th('memory.available', {})];
    expect(byEvictionPriority(ts).map((t) => t.signal)).toEqual([
      'memory.available',
      'nodefs.available',
      'pid.available',
    ]);
    expect(byEvictionPriority([])).toEqual([]);
  });
});

import { describe, it, expect } from 'vitest';
import { runSuite, parseSizes, type BenchSuite, type BenchReport } from '../../bench/harness.js';
import { compareBaseline, fitGrowth, formatMarkdown, formatText } from '../../bench/format.js';
import { renderHtml } from '../../bench/html.js';

const busy = (n: number) => {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i);
  return x;
};

const toy: BenchSuite = {
  name: 'toy',
  description: 'linear vs constant work',
  sizeUnit: 'items',
  defaultSizes: [1000, 4000, 16000],
  quickSizes: [1000, 4000, 16000],
  async run(opts, rec) {
    for (const n of opts.sizes ?? this.quickSizes) {
      await rec.measure('work', () => busy(n), {
        mode: 'linear',
        size: n,
        units: n,
        unit: 'items',
        timeMs: 30,
      });
      await rec.measure('work', () => busy(50), {
        mode: 'constant',
        size: n,
        units: n,
        unit: 'items',
        timeMs: 30,
      });
    }
    rec.figure('rules', { rules: 42, bytes: 1234 }, { mode: 'linear' });
    rec.skip('etcd', 'etcd not installed', { mode: 'etcd' });
    await rec.measure(
      'boom',
      () => {
        throw new Error('kaput');
      },
      { timeMs: 5 },
    );
  },
};

const opts = { quick: true, timeMs: 30, seed: 1, args: {}, progress: () => {} };

describe('bench harness', () => {
  it('records throughput, figures, skips and failures as data', async () => {
    const rep = await runSuite(toy, opts);
    expect(rep.schema).toBe('kubesim-bench/v1');
    const lin = rep.results.find((r) => r.id === 'toy|work|linear|16000')!;
    expect(lin.state).toBe('completed');
    expect(lin.throughput).toBeGreaterThan(0);
    expect(lin.latency!.p99).toBeGreaterThanOrEqual(lin.latency!.p50);
    expect(rep.results.find((r) => r.name === 'rules')!.figures).toEqual({ rules: 42, bytes: 1234 });
    expect(rep.results.find((r) => r.name === 'etcd')!.state).toBe('skipped');
    const boom = rep.results.find((r) => r.name === 'boom')!;
    expect(boom.state).toBe('errored');
    expect(boom.error).toContain('kaput');
    // both series were measured at three sizes, so both get a fitted growth
    expect(
      fitGrowth(rep)
        .map((g) => g.mode)
        .sort(),
    ).toEqual(['constant', 'linear']);
    // side-by-side ratio is printed against the first mode
    expect(formatText(rep)).toMatch(/× linear/);
    expect(formatMarkdown(rep, 'kubesim bench toy')).toContain('| work | 16000 items | constant |');
    const html = renderHtml([rep], 'kubesim bench toy');
    expect(html).toContain('<svg');
    expect(html).toContain('skipped: etcd not installed');
  });

  it('fits growth exponents on log-log axes (timing-free data)', () => {
    const row = (mode: string, size: number, mean: number) => ({
      id: `t|w|${mode}|${size}`,
      suite: 't',
      name: 'w',
      mode,
      size,
      state: 'completed' as const,
      latency: { mean, p50: mean, p75: mean, p99: mean, p999: mean, min: mean, max: mean },
    });
    const rep: BenchReport = {
      schema: 'kubesim-bench/v1',
      suite: 't',
      startedAt: '',
      durationMs: 0,
      machine: { cpus: 2, cpuModel: '', memoryGiB: 1, node: '', platform: '' },
      options: { quick: true, timeMs: 1, seed: 1, args: {} },
      notes: [],
      results: [1, 10, 100].flatMap((n) => [
        row('linear', n, 3 * n),
        row('square', n, n * n),
        row('flat', n, 5),
      ]),
    };
    const g = Object.fromEntries(fitGrowth(rep).map((x) => [x.mode, x]));
    expect(g.linear.exponent).toBeCloseTo(1, 6);
    expect(g.linear.label).toBe('O(N)');
    expect(g.square.exponent).toBeCloseTo(2, 6);
    expect(g.square.label).toBe('O(N²)');
    expect(g.flat.exponent).toBeCloseTo(0, 6);
    expect(g.flat.label).toBe('O(1)');
  });

  it('flags regressions beyond the tolerance only', () => {
    const mk = (tp: number): BenchReport[] => [
      {
        schema: 'kubesim-bench/v1',
        suite: 't',
        startedAt: '',
        durationMs: 0,
        machine: { cpus: 2, cpuModel: '', memoryGiB: 1, node: '', platform: '' },
        options: { quick: true, timeMs: 1, seed: 1, args: {} },
        notes: [],
        results: [{ id: 't|a|-|-', suite: 't', name: 'a', state: 'completed', throughput: tp }],
      },
    ];
    expect(compareBaseline(mk(100), mk(85), { tolerance: 0.2 }).regressions).toEqual([]);
    const regs = compareBaseline(mk(100), mk(70), { tolerance: 0.2 }).regressions;
    expect(regs).toHaveLength(1);
    expect(regs[0].change).toBeCloseTo(-0.3);
  });

  it('compares ratio rows without the machine factor and leaves them out of it', () => {
    const mk = (tp: number, ratio: number): BenchReport[] => [
      {
        schema: 'kubesim-bench/v1',
        suite: 't',
        startedAt: '',
        durationMs: 0,
        machine: { cpus: 2, cpuModel: '', memoryGiB: 1, node: '', platform: '' },
        options: { quick: true, timeMs: 1, seed: 1, args: {} },
        notes: [],
        results: [
          { id: 't|a|-|-', suite: 't', name: 'a', state: 'completed', throughput: tp, unit: 'pods' },
          { id: 't|b|-|-', suite: 't', name: 'b', state: 'completed', throughput: tp, unit: 'pods' },
          { id: 't|r|-|-', suite: 't', name: 'r', state: 'completed', throughput: ratio, unit: 'ratio' },
        ],
      },
    ];
    // a machine half as fast: the pods rows are normalized, the ratio row is judged as it is
    const same = compareBaseline(mk(100, 0.8), mk(50, 0.8), { tolerance: 0.2, normalize: true });
    expect(same.machineFactor).toBeCloseTo(0.5, 6);
    expect(same.regressions).toEqual([]);
    const worse = compareBaseline(mk(100, 0.8), mk(50, 0.4), { tolerance: 0.2, normalize: true });
    expect(worse.regressions.map((r) => [r.id, r.change])).toEqual([['t|r|-|-', -0.5]]);
  });

  it('parses size lists and rejects junk', () => {
    expect(parseSizes('1000, 5k,10k')).toEqual([1000, 5000, 10000]);
    expect(() => parseSizes('10x')).toThrow(/invalid size "10x"/);
  });
});

// Regression checks against a baseline through the real CLI entry: `bench compare` on a real
// report and doctored copies of it (a result slower than the rest, a uniformly slower machine, a
// steeper growth are told apart), and `bench <suite> --baseline` on a live run.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubesimInProcess } from '../cli/harness.js';
import type { BenchReport } from '../../bench/harness.js';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await kubesimInProcess(args);
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'kubesim-baseline-'));
const current = join(dir, 'current.json');
const SIM = [
  'bench',
  'sim',
  '--quick',
  '--sizes',
  '30,60,120',
  '--minutes',
  '1',
  '--envelope',
  'none',
  '--no-progress',
];
const ROW = (size: number) => `sim|demo CPU time|kube-scheduler model|${size}`;
let doc: { schema: string; reports: BenchReport[] };

/** a copy of the real report with its rows changed by `edit` */
function doctored(name: string, edit: (r: BenchReport['results'][number], i: number) => void): string {
  const copy = JSON.parse(JSON.stringify(doc)) as typeof doc;
  copy.reports[0].results.forEach(edit);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(copy));
  return file;
}

describe('bench compare and --baseline', () => {
  beforeAll(async () => {
    const r = await cli(...SIM, '-o', 'json', '--out', current);
    expect(r.code, r.err).toBe(0);
    doc = JSON.parse(readFileSync(current, 'utf8'));
    expect(doc.reports[0].results.map((x) => x.size)).toEqual([30, 60, 120]);
  }, 240_000); // a hang guard, as vitest.config.ts's: live bench runs take minutes on a saturated machine
  afterEach(() => vi.restoreAllMocks());

  it('a report compared with itself passes, and the table lists every result', async () => {
    const r = await cli('bench', 'compare', current, current);
    expect(r.code, r.err).toBe(0);
    for (const size of [30, 60, 120])
      expect(r.out).toMatch(new RegExp(`${ROW(size).replace(/\|/g, '\\|')}\\s.*\\+0\\.0%`));
    expect(r.err).toMatch(/3 result\(s\) compared, no regression beyond 20%/);
  });

  it('exits 3 naming the one result that got slower than the others, with and without --normalize', async () => {
    const base = doctored('one-faster', (r, i) => {
      if (i === 1) r.throughput = r.throughput! * 2;
    });
    for (const extra of [[], ['--normalize']]) {
      const r = await cli('bench', 'compare', base, current, ...extra);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`${ROW(60)}: `);
      expect(r.err).toContain('(-50.0%');
      expect(r.err).not.toContain(`${ROW(30)}: `);
      expect(r.out).toMatch(/REGRESSED/);
    }
  });

  it('--normalize divides out a machine that is uniformly slower than the baseline', async () => {
    const base = doctored('faster-machine', (r) => {
      r.throughput = r.throughput! * 3;
    });
    const plain = await cli('bench', 'compare', base, current);
    expect(plain.code).toBe(3);
    expect(plain.err).toMatch(/^kubesim: 3 regression\(s\)/);
    const normalized = await cli('bench', 'compare', base, current, '--normalize', '-o', 'json');
    expect(normalized.code, normalized.err).toBe(0);
    expect(JSON.parse(normalized.out).machineFactor).toBeCloseTo(1 / 3, 6);
    expect(normalized.err).toContain('machine factor 0.33× divided out');
  });

  it('exits 3 when a growth exponent rises beyond --growth-tolerance, whatever the speed', async () => {
    // in the baseline the cost grew flatter: size^-0.5 taken off each row's cost
    const base = doctored('flatter', (r) => {
      r.latency = { ...r.latency!, mean: r.latency!.mean * (r.size! / 30) ** -0.5 };
    });
    const r = await cli('bench', 'compare', base, current, '--normalize', '--tolerance', '10');
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/growth of sim: demo CPU time \(kube-scheduler model\): size\^-?\d\.\d\d → size\^/);
    const allowed = await cli(
      'bench',
      'compare',
      base,
      current,
      '--tolerance',
      '10',
      '--growth-tolerance',
      '0.6',
    );
    expect(allowed.code, allowed.err).toBe(0);
  });

  it('does not judge a result either run measured with a wide margin of error', async () => {
    const base = doctored('noisy', (r, i) => {
      if (i === 0) {
        r.throughput = r.throughput! * 10;
        r.rme = 40;
      }
    });
    const r = await cli('bench', 'compare', base, current);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`not judged (margin of error above 10% in either run): ${ROW(30)}`);
  });

  it('refuses a file that is not a bench report, and bad tolerances', async () => {
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, '{"schema":"something-else"}');
    const r = await cli('bench', 'compare', junk, current);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${junk}: schema is "something-else"`);
    const u = await cli('bench', 'compare', current, current, '--growth-tolerance', 'x');
    expect(u.code).toBe(2);
    expect(u.err).toContain('--growth-tolerance must be a number >= 0, got "x"');
  });

  it('bench <suite> --baseline judges a live run the same way', async () => {
    const ok = await cli(
      ...SIM,
      '-o',
      'json',
      '--out',
      join(dir, 'again.json'),
      '--baseline',
      current,
      '--normalize',
      '--tolerance',
      '0.9',
      '--growth-tolerance',
      '2',
    );
    expect(ok.code, ok.err).toBe(0);
    expect(ok.err).toMatch(/3 result\(s\) compared/);
    // a baseline 100× faster on every row: beyond any noise without --normalize
    const base = doctored('much-faster', (r) => {
      r.throughput = r.throughput! * 100;
    });
    const bad = await cli(...SIM, '-o', 'json', '--out', join(dir, 'again.json'), '--baseline', base);
    expect(bad.code).toBe(3);
    expect(bad.err).toContain(`${ROW(120)}: `);
  }, 240_000); // a hang guard, as vitest.config.ts's: live bench runs take minutes on a saturated machine
});

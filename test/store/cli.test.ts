/** `kubesim store demo|replay`: output shapes, --check failing with a readable diff, bad input errors. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from '../../src/cli/store.js';
import { CliError } from '../../src/cli/errors.js';

const fixture = join(import.meta.dirname, '..', '..', 'examples', 'store', 'kv-watch-lease.json');

async function run(...args: string[]): Promise<string> {
  const program = new Command('kubesim').exitOverride();
  register(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'kubesim', 'store', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe('kubesim store', () => {
  it('demo -o json: CAS conflict, lease expiry and compaction as etcd does them', async () => {
    const r = JSON.parse(await run('demo', '-o', 'json'));
    const byStep = Object.fromEntries(
      r.steps.map((s: { step: string; revision: number; result: string }) => [
        s.step.split(':')[0] + (s.step.includes('Failed') ? ' stale' : ''),
        s,
      ]),
    );
    expect(byStep['txn stale'].result).toMatch(/conflict/);
    expect(byStep['txn stale'].revision).toBe(4);
    expect(byStep['range the prefix at revision 3 again'].result).toBe(
      'error: mvcc: required revision has been compacted',
    );
    expect(r.watchEvents.map((e: { revision: number; type: string }) => `${e.revision}${e.type[0]}`)).toEqual(
      ['2P', '3P', '4P', '5P', '6D', '7D'],
    );
  });

  it('demo prints a table', async () => {
    const out = await run('demo');
    expect(out).toMatch(/^STEP\s+REV\s+RESULT$/m);
    expect(out).toMatch(/what the prefix watcher received/);
  });

  it('replay --check passes on a matching trace', async () => {
    const out = await run('replay', fixture, '--check');
    expect(out).toMatch(/all 16 answers and 2 watchers match/);
  });

  it('replay -o json prints the trace shapes', async () => {
    const r = JSON.parse(await run('replay', fixture, '-o', 'json'));
    const trace = JSON.parse(readFileSync(fixture, 'utf8'));
    expect(r.expected).toHaveLength(trace.ops.length);
    expect(r.watchEvents.w1).toEqual(trace.watchEvents.w1);
  });

  it('replay --check fails with the differing op and field', async () => {
    const trace = JSON.parse(readFileSync(fixture, 'utf8'));
    trace.expected[5].revision = 99;
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-store-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(trace));
    const err = await run('replay', file, '--check').catch((e) => e);
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toContain('1 difference(s)');
    expect(err.message).toContain('ops[5] put "ab".revision: differs');
  });

  it('bad input names the file and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-store-'));
    const file = join(dir, 't.json');
    writeFileSync(file, JSON.stringify({ format: 'etcd-golden-trace/v1', ops: [{ op: 'put', key: 1 }] }));
    await expect(run('replay', file)).rejects.toThrow(
      `${file}: ops[0] (put): field "key" is 1; expected a string`,
    );
    writeFileSync(file, '{');
    await expect(run('replay', file)).rejects.toThrow(`${file}: not valid JSON`);
    await expect(run('replay', join(dir, 'missing.json'))).rejects.toThrow(/cannot read trace/);
    writeFileSync(file, JSON.stringify({ format: 'etcd-golden-trace/v1', ops: [{ op: 'sleep', ms: 1e12 }] }));
    await expect(run('replay', file)).rejects.toThrow(
      `${file}: ops[0] (sleep): field "ms" is 1000000000000; expected 0 to 3600000 (1 h)`,
    );
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"format": "'), Buffer.of(0xc3, 0x28), Buffer.from('"}')]),
    );
    await expect(run('replay', file)).rejects.toThrow(`${file}: not UTF-8: byte 0xc3 at offset 12`);
    truncateSync(file, 65 * 1024 * 1024); // sparse: no 65 MiB written
    await expect(run('replay', file)).rejects.toThrow(
      `${file}: 68157440 bytes; the largest trace read is 67108864 bytes (64 MiB)`,
    );
  });
});

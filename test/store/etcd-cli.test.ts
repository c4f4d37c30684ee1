/**
 * `kubesim store record`: registered under `kubesim store`, records a deterministic trace identical to the checked-in fixture, reads user op files,
 * and reports bad input as one-line errors naming the file and op.
 */
import { Command } from 'commander';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../src/cli/errors.js';
import { register as registerStore } from '../../src/cli/store.js';
import { describeEtcd } from '../helpers/etcd.js';

const tmp = mkdtempSync(join(tmpdir(), 'kubesim-etcd-cli-'));
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'etcd');

async function run(...args: string[]): Promise<{ out: string; err: string }> {
  const program = new Command('kubesim').exitOverride();
  registerStore(program);
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c: unknown) => ((out += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: unknown) => ((err += String(c)), true));
  try {
    await program.parseAsync(['node', 'kubesim', 'store', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return { out, err };
}

afterEach(() => vi.restoreAllMocks());

describe('kubesim store record: bad input', () => {
  it('names the file and the op of a malformed op sequence', async () => {
    const f = join(tmp, 'bad.json');
    writeFileSync(
      f,
      JSON.stringify({ name: 'bad', ops: [{ op: 'put', key: 'a', value: 'v' }, { op: 'range' }] }),
    );
    const e = await run('record', f).catch((x) => x);
    expect(e).toBeInstanceOf(CliError);
    expect(e.message).toMatch(new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*ops\\[1\\].*"key"`));
  });

  it('rejects unknown built-in sets, listing the known ones', async () => {
    await expect(run('record', '--builtin', 'nope')).rejects.toThrow(
      /unknown built-in op set "nope" \(known: kv-basic, range, txn/,
    );
  });

  it('rejects invalid JSON with the file name', async () => {
    const f = join(tmp, 'broken.json');
    writeFileSync(f, '{ "ops": [ ');
    await expect(run('record', f)).rejects.toThrow(
      new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
  });

  it('needs an ops file or --builtin', async () => {
    await expect(run('record')).rejects.toThrow(/give an ops file or --builtin/);
  });
});

describeEtcd(
  'kubesim store record on a real etcd',
  () => {
    it('--builtin kv-basic reproduces the checked-in golden trace exactly', async () => {
      const out = join(tmp, 'kv-basic.json');
      const { err } = await run('record', '--builtin', 'kv-basic', '--out', out, '--check');
      expect(err).toMatch(/recorded kv-basic: 39 ops, 0 watchers, 0 warnings/);
      expect(err).toMatch(/MemoryStore matches/);
      const fresh = JSON.parse(readFileSync(out, 'utf8'));
      const golden = JSON.parse(readFileSync(join(fixtures, 'kv-basic.json'), 'utf8'));
      expect(fresh).toEqual(golden);
    });

    it('records a user op file to stdout, with TTL matchers', async () => {
      const f = join(tmp, 'mine.json');
      writeFileSync(
        f,
        JSON.stringify({
          name: 'mine',
          description: 'a lease and a key',
          ops: [
            { op: 'leaseGrant', lease: 'L1', ttl: 30 },
            { op: 'put', key: 'k', value: 'v', lease: 'L1' },
            { op: 'leaseTimeToLive', lease: 'L1', keys: true },
          ],
        }),
      );
      const { out } = await run('record', f);
      const trace = JSON.parse(out);
      expect(trace).toMatchObject({
        format: 'etcd-golden-trace/v1',
        name: 'mine',
        initialRevision: 1,
        opCount: 3,
        warnings: [],
      });
      expect(trace.expected).toEqual([
        { revision: 1, lease: 'L1', ttl: 30 },
        { revision: 2, prevKv: null },
        { revision: 2, lease: 'L1', ttl: { $range: [20, 30] }, grantedTTL: 30, keys: ['k'] },
      ]);
    });
  },
  { shared: false },
);

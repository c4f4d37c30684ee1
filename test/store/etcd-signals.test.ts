/**
 * Clean shutdown: a signal to the kubesim CLI while it runs an etcd child (`store record`,
 * `bench store`) stops that etcd by its pid and removes its data directory; a trace being
 * recorded is never left truncated. The real CLI (dist) is spawned and signalled, and /proc is
 * searched for the etcd it started.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { describeEtcd } from '../helpers/etcd.js';

const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** cmdline of every process whose arguments name this data dir (zombies have none) */
function processesUsing(dataDir: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(dataDir)) out.push(`${pid}: ${cmd.join(' ')}`);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** the data dir of the etcd child of `parent`, once it runs */
async function etcdChildDataDir(parent: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        if (!new RegExp(`^PPid:\\s+${parent}$`, 'm').test(status)) continue;
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const i = cmd.indexOf('--data-dir');
        if (i >= 0) return cmd[i + 1]!;
      } catch {
        /* exited meanwhile */
      }
    }
    await sleep(50);
  }
  throw new Error(`no etcd child of ${parent} within ${timeoutMs} ms`);
}

async function interrupt(args: string[], signal: NodeJS.Signals, settleMs: number) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += String(c)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  const dataDir = await etcdChildDataDir(child.pid!, 60_000);
  expect(existsSync(dataDir)).toBe(true);
  await sleep(settleMs);
  child.kill(signal);
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const result = await exited;
  clearTimeout(guard);
  let left = processesUsing(dataDir);
  for (let i = 0; i < 50 && left.length > 0; i++) {
    await sleep(100);
    left = processesUsing(dataDir);
  }
  const dirLeft = existsSync(dataDir);
  // whatever the outcome, leave nothing behind
  for (const p of left) process.kill(Number(p.split(':')[0]), 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  return { ...result, dataDir, left, dirLeft, stderr };
}

describeEtcd(
  'a signal stops the etcd child and removes its data directory',
  () => {
    const out = mkdtempSync(join(tmpdir(), 'kubesim-signals-'));

    it('store record, SIGINT: ends by the signal, no etcd left, no data dir, no partial trace', async () => {
      const target = join(out, 'watch.json');
      const r = await interrupt(['store', 'record', '--builtin', 'watch', '--out', target], 'SIGINT', 300);
      expect(r.signal, r.stderr).toBe('SIGINT');
      expect(r.left).toEqual([]);
      expect(r.dirLeft).toBe(false);
      // recording takes seconds: the trace was not written yet, and nothing half-written is there
      expect(readdirSync(out)).toEqual([]);
    });

    it('bench store, SIGTERM: the same', async () => {
      const r = await interrupt(
        ['bench', 'store', '--quick', '--sizes', '1', '--time', '50'],
        'SIGTERM',
        200,
      );
      expect(r.signal, r.stderr).toBe('SIGTERM');
      expect(r.left).toEqual([]);
      expect(r.dirLeft).toBe(false);
    });
  },
  { shared: false },
);

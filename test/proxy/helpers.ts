/**
 * Helpers of the proxy tests. Streamed renders keep some bytes in temporary files (iptables' nat rules, ipvs' delta.ipvsadm)
 * under os.tmpdir(), which follows TMPDIR: a test file that counts them gets a directory of its
 * own for the duration of its tests, so renders in other test files do not count.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll } from 'vitest';
import { register } from '../../src/cli/proxy.js';

/** Registers the private TMPDIR; returns a counter of the spill directories named `prefix…` in it. */
export function countSpillDirs(prefix: string): () => number {
  const privateTmp = mkdtempSync(join(tmpdir(), `${prefix}tmp-`));
  const saved = process.env.TMPDIR;
  beforeAll(() => {
    process.env.TMPDIR = privateTmp;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });
  return () => readdirSync(privateTmp).filter((f) => f.startsWith(prefix)).length;
}

/** Runs `kubesim proxy <args>` in this process (the CLI's public path). */
export async function proxyCli(...args: string[]): Promise<void> {
  const p = new Command('kubesim').exitOverride();
  register(p);
  await p.parseAsync(['node', 'kubesim', 'proxy', ...args]);
}

/**
 * The etcd test helper's contract: with etcd, a suite runs on a live etcd; without one it is
 * SKIPPED with the reason, and under KUBESIM_REQUIRE_ETCD=1 (CI) it FAILS. The missing-etcd cases
 * run this same file in a child vitest with KUBESIM_ETCD_BIN pointing nowhere.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findEtcdBinary } from '../../src/store/etcd/launcher.js';
import { describeEtcd } from '../helpers/etcd.js';

const isChild = process.env.KUBESIM_HELPER_CHILD === '1';

describeEtcd(
  'helper probe',
  (etcd) => {
    it('runs on a live etcd', async () => {
      const s = etcd.store('probe/');
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(1);
    });
  },
  { shared: true },
);

describe.skipIf(isChild)('etcd helper without etcd', () => {
  const root = join(import.meta.dirname, '..', '..');
  const runChild = (extra: Record<string, string>) =>
    new Promise<{ status: number; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/store/etcd-helper.test.ts'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            ...process.env,
            KUBESIM_HELPER_CHILD: '1',
            KUBESIM_ETCD_BIN: '/nonexistent/etcd',
            KUBESIM_REQUIRE_ETCD: '',
            ...extra,
          },
        },
        (err, stdout, stderr) =>
          resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
    });
  // both children start at once (each is a vitest start-up of several seconds)
  let skipRun: ReturnType<typeof runChild>;
  let requireRun: ReturnType<typeof runChild>;
  const start = () => {
    skipRun ??= runChild({});
    requireRun ??= runChild({ KUBESIM_REQUIRE_ETCD: '1' });
  };

  it('a named binary that does not exist is not replaced by another etcd', () => {
    expect(findEtcdBinary('/nonexistent/etcd')).toEqual({ tried: ['/nonexistent/etcd'] });
  });

  it('skips with the reason when etcd is missing', async () => {
    start();
    const { status, out } = await skipRun;
    expect(status, out).toBe(0);
    expect(out).toMatch(/SKIPPING "helper probe": etcd binary not found \(tried \/nonexistent\/etcd\)/);
    expect(out).toMatch(/skipped/i);
  });

  it('fails under KUBESIM_REQUIRE_ETCD=1 when etcd is missing', async () => {
    start();
    const { status, out } = await requireRun;
    expect(status, out).not.toBe(0);
    expect(out).toMatch(/needs etcd \(KUBESIM_REQUIRE_ETCD=1\)/);
  });
});

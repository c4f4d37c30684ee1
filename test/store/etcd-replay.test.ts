/**
 * Every golden trace recorded on real etcd (test/fixtures/etcd) replayed twice: on a fresh real
 * etcd through EtcdStore (the recording must be reproducible, quirks included) and on MemoryStore
 * with a virtual clock (the in-memory store must answer exactly what etcd answered).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayOnEtcd } from '../../src/store/etcd/record.js';
import { traceOpSets } from '../../src/store/etcd/trace-ops.js';
import {
  compareTrace,
  formatDifferences,
  parseTrace,
  replayOnMemory,
  type GoldenTrace,
} from '../../src/store/trace/index.js';
import { describeEtcd } from '../helpers/etcd.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'etcd');
const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];
const load = (f: string): GoldenTrace =>
  parseTrace(JSON.parse(readFileSync(join(dir, f), 'utf8')), `test/fixtures/etcd/${f}`);

describe('golden etcd traces', () => {
  it('exist for every built-in op set, with the ops of that set and no recorder warnings', () => {
    for (const set of traceOpSets) {
      const f = `${set.name}.json`;
      expect(files, `missing test/fixtures/etcd/${f}: run kubesim store record --builtin all`).toContain(f);
      const trace = load(f);
      expect(trace.ops, `${f}: ops changed since recording; re-record`).toEqual(set.ops);
      expect(trace.warnings).toEqual([]);
      expect(trace.opCount).toBe(set.ops.length);
      expect(trace.recordedWith?.etcdVersion).toMatch(/^3\.4\./);
    }
  });
});

describe('golden etcd traces replay on MemoryStore', () => {
  for (const f of files) {
    it(f, async () => {
      const trace = load(f);
      const diffs = compareTrace(trace, await replayOnMemory(trace));
      expect(diffs, formatDifferences(diffs)).toEqual([]);
    });
  }
});

describeEtcd(
  'golden etcd traces replay on a fresh real etcd (EtcdStore)',
  () => {
    describe.concurrent('traces', () => {
      for (const f of files) {
        it(f, async () => {
          const trace = load(f);
          const diffs = compareTrace(trace, await replayOnEtcd(trace));
          expect(diffs, formatDifferences(diffs)).toEqual([]);
        });
      }
    });
  },
  { shared: false },
);

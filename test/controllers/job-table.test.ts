/**
 * Rows of upstream's TestControllerSyncJob (pkg/controller/job/job_controller_test.go, v1.34)
 * transcribed as data and checked against planJobSync, the Job controller's decision for one sync.
 * Pod counts build pods the way the upstream test's setPodsStatuses / setPodsStatusesWithIndexes do.
 *
 * Rows checked with the v1.34 defaults (JobPodReplacementPolicy and JobManagedBy on): where an
 * upstream row was written with the gates off and expects Failed while pods are still being
 * deleted, v1.34 first sets FailureTarget (the upstream row "count terminating pods when indexed
 * job fails and PodReplacementPolicy enabled" shows it), so `condition` says FailureTarget.
 *
 * Left out: rows with podControllerError or podLimit (they test FakePodControl's injected errors),
 * podReplacementPolicy Failed, podFailurePolicy, successPolicy, managedBy and backoffLimitPerIndex
 * rows (not modelled), and expectedPodPatches (no job-tracking finalizer here).
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/api/batch-types.js';
import type { Pod } from '../../src/api/types.js';
import { planJobSync } from '../../src/controllers/job.js';
import { JOB_COMPLETION_INDEX } from '../../src/controllers/job-indexes.js';

interface Row {
  parallelism: number;
  /** -1: nil (a work queue Job) */
  completions: number;
  backoffLimit: number;
  deleting?: boolean;
  indexed?: boolean;
  suspend?: boolean;
  initial?: { active?: number; succeeded?: number; failed?: number };
  backoffFailures?: number;
  pending?: number;
  active?: number;
  ready?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  withIndexes?: [
    string,
    Pod['status'] extends infer S ? (S extends { phase?: infer P } ? P : never) : never,
  ][];
  unsatisfied?: boolean;
  want: {
    creations?: number;
    deletions?: number;
    active?: number;
    ready?: number;
    succeeded?: number;
    failed?: number;
    completedIdxs?: string;
    terminating?: number;
    condition?: [string, string?];
    createdIndexes?: number[];
  };
}

const BLE = 'BackoffLimitExceeded';
// biome-ignore format: upstream rows read best as compact as they are written there
const rows: Record<string, Row> = {
  'job start': { parallelism: 2, completions: 5, backoffLimit: 6, want: { creations: 2, active: 2, ready: 0 } },
  'WQ job start': { parallelism: 2, completions: -1, backoffLimit: 6, want: { creations: 2, active: 2, ready: 0 } },
  'pending pods': { parallelism: 2, completions: 5, backoffLimit: 6, pending: 2, want: { active: 2, ready: 0 } },
  'correct # of pods': {
    parallelism: 3, completions: 5, backoffLimit: 6, active: 3, ready: 2, want: { active: 3, ready: 2 },
  },
  'WQ job: correct # of pods': {
    parallelism: 2, completions: -1, backoffLimit: 6, active: 2, want: { active: 2, ready: 0 },
  },
  'too few active pods': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 1, succeeded: 1,
    want: { creations: 1, active: 2, succeeded: 1, ready: 0 },
  },
  'WQ job: turn on PodReplacementPolicy but not set PodReplacementPolicy': {
    parallelism: 1, completions: 1, backoffLimit: 6, active: 1, failed: 1, terminating: 1,
    want: { terminating: 1, ready: 0, active: 1, failed: 2 },
  },
  'WQ job: recreate pods when terminating or failed': {
    parallelism: 1, completions: -1, backoffLimit: 6, active: 1, failed: 1, terminating: 1,
    want: { terminating: 1, ready: 0, active: 1, failed: 2 },
  },
  'too few active pods and active back-off': {
    parallelism: 1, completions: 1, backoffLimit: 6, backoffFailures: 1, initial: {},
    want: { creations: 0, active: 0, succeeded: 0, ready: 0 },
  },
  'too few active pods and no back-offs': {
    parallelism: 1, completions: 1, backoffLimit: 6, backoffFailures: 0,
    want: { creations: 1, active: 1, succeeded: 0, ready: 0 },
  },
  'too few active pods with a dynamic job': {
    parallelism: 2, completions: -1, backoffLimit: 6, active: 1, want: { creations: 1, active: 2, ready: 0 },
  },
  'too many active pods': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 3, want: { deletions: 1, active: 2, ready: 0 },
  },
  'too many active pods; PodReplacementPolicy enabled': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 3,
    want: { deletions: 1, active: 2, ready: 0, terminating: 1 },
  },
  'count ready pods when too many active pods': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 3, ready: 3,
    want: { deletions: 1, active: 2, ready: 2 },
  },
  'failed + succeed pods: reset backoff delay': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 1, succeeded: 1, failed: 1,
    want: { creations: 1, active: 2, succeeded: 1, failed: 1, ready: 0 },
  },
  'new failed pod': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 1, failed: 1,
    want: { creations: 1, active: 2, failed: 1, ready: 0 },
  },
  'no new pod; possible finalizer update of failed pod': {
    parallelism: 1, completions: 1, backoffLimit: 6, initial: { active: 1, succeeded: 0, failed: 1 }, active: 1,
    want: { creations: 0, active: 1, failed: 1, ready: 0 },
  },
  'job finish': {
    parallelism: 2, completions: 5, backoffLimit: 6, succeeded: 5, want: { succeeded: 5, condition: ['Complete'] },
  },
  'WQ job finishing': {
    parallelism: 2, completions: -1, backoffLimit: 6, active: 1, succeeded: 1,
    want: { active: 1, succeeded: 1, ready: 0, condition: undefined },
  },
  'WQ job all finished': {
    parallelism: 2, completions: -1, backoffLimit: 6, succeeded: 2, want: { succeeded: 2, condition: ['Complete'] },
  },
  'WQ job all finished despite one failure': {
    parallelism: 2, completions: -1, backoffLimit: 6, succeeded: 1, failed: 1,
    want: { succeeded: 1, failed: 1, condition: ['Complete'] },
  },
  'more active pods than parallelism': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 10, want: { deletions: 8, active: 2, ready: 0 },
  },
  'more active pods than remaining completions': {
    parallelism: 3, completions: 4, backoffLimit: 6, active: 3, succeeded: 2,
    want: { deletions: 1, active: 2, succeeded: 2, ready: 0 },
  },
  'status change': {
    parallelism: 2, completions: 5, backoffLimit: 6, active: 2, succeeded: 2,
    want: { active: 2, succeeded: 2, ready: 0 },
  },
  'deleting job': {
    parallelism: 2, completions: 5, backoffLimit: 6, deleting: true, pending: 1, active: 1, succeeded: 1,
    want: { active: 2, succeeded: 1, ready: 0 },
  },
  'too many job failures': {
    parallelism: 2, completions: 5, backoffLimit: 0, deleting: true, failed: 1,
    want: { failed: 1, condition: ['Failed', BLE], ready: 0 },
  },
  'job failures, unsatisfied expectations': {
    parallelism: 2, completions: 5, backoffLimit: 0, deleting: true, failed: 1, unsatisfied: true,
    want: { failed: 1, ready: 0, condition: undefined },
  },
  'indexed job start': {
    parallelism: 2, completions: 5, backoffLimit: 6, indexed: true,
    want: { creations: 2, active: 2, createdIndexes: [0, 1], ready: 0 },
  },
  'indexed job with some pods deleted, podReplacementPolicy TerminatingOrFailed': {
    parallelism: 2, completions: 5, backoffLimit: 6, indexed: true, terminating: 1,
    want: { creations: 2, active: 2, createdIndexes: [0, 1], terminating: 1, ready: 0 },
  },
  'indexed job completed': {
    parallelism: 2, completions: 3, backoffLimit: 6, indexed: true,
    withIndexes: [['0', 'Succeeded'], ['1', 'Failed'], ['1', 'Succeeded'], ['2', 'Succeeded']],
    want: { succeeded: 3, failed: 1, completedIdxs: '0-2', condition: ['Complete'], ready: 0 },
  },
  'indexed job failed': {
    parallelism: 2, completions: 3, backoffLimit: 0, indexed: true,
    withIndexes: [['0', 'Succeeded'], ['1', 'Failed'], ['2', 'Running']],
    want: { succeeded: 1, failed: 2, completedIdxs: '0', condition: ['FailureTarget', BLE], ready: 0, deletions: 1 },
  },
  'count terminating pods when indexed job fails and PodReplacementPolicy enabled': {
    parallelism: 2, completions: 3, backoffLimit: 0, indexed: true,
    withIndexes: [['0', 'Succeeded'], ['1', 'Failed'], ['2', 'Running']],
    want: {
      succeeded: 1, failed: 2, completedIdxs: '0', condition: ['FailureTarget', BLE], ready: 0, deletions: 1,
      terminating: 1,
    },
  },
  'count ready pods when job fails': {
    parallelism: 2, completions: 3, backoffLimit: 0, active: 2, ready: 2, failed: 1,
    want: { failed: 3, condition: ['FailureTarget', BLE], ready: 0, deletions: 2 },
  },
  'indexed job repeated completed index': {
    parallelism: 2, completions: 3, backoffLimit: 6, indexed: true,
    withIndexes: [['0', 'Succeeded'], ['1', 'Succeeded'], ['1', 'Succeeded']],
    want: { creations: 1, active: 1, succeeded: 2, completedIdxs: '0,1', createdIndexes: [2], ready: 0 },
  },
  'indexed job some running and completed pods': {
    parallelism: 8, completions: 20, backoffLimit: 6, indexed: true,
    withIndexes: [
      ['0', 'Running'], ['2', 'Succeeded'], ['3', 'Pending'], ['4', 'Succeeded'],
      ['5', 'Succeeded'], ['7', 'Succeeded'], ['8', 'Succeeded'], ['9', 'Succeeded'],
    ],
    want: {
      creations: 6, active: 8, succeeded: 6, completedIdxs: '2,4,5,7-9',
      createdIndexes: [1, 6, 10, 11, 12, 13], ready: 0,
    },
  },
  'indexed job some failed pods': {
    parallelism: 3, completions: 4, backoffLimit: 6, indexed: true,
    withIndexes: [['0', 'Failed'], ['1', 'Pending'], ['2', 'Failed']],
    want: { creations: 2, active: 3, failed: 2, createdIndexes: [0, 2], ready: 0 },
  },
  'indexed job some pods without index': {
    parallelism: 2, completions: 5, backoffLimit: 6, indexed: true, active: 1, succeeded: 1, failed: 1,
    withIndexes: [
      ['invalid', 'Running'], ['invalid', 'Succeeded'], ['invalid', 'Failed'], ['invalid', 'Pending'],
      ['0', 'Succeeded'], ['1', 'Running'], ['2', 'Running'],
    ],
    want: { deletions: 3, active: 2, succeeded: 1, failed: 0, completedIdxs: '0', ready: 0 },
  },
  'indexed job repeated indexes': {
    parallelism: 5, completions: 5, backoffLimit: 6, indexed: true, succeeded: 1, failed: 1,
    withIndexes: [['invalid', 'Running'], ['0', 'Succeeded'], ['1', 'Running'], ['2', 'Running'], ['2', 'Pending']],
    want: { creations: 0, deletions: 2, active: 2, succeeded: 1, completedIdxs: '0', ready: 0 },
  },
  'indexed job with indexes outside of range': {
    parallelism: 2, completions: 5, backoffLimit: 6, indexed: true,
    withIndexes: [['0', 'Succeeded'], ['5', 'Running'], ['6', 'Succeeded'], ['7', 'Pending'], ['8', 'Failed']],
    want: { creations: 0, succeeded: 1, deletions: 2, completedIdxs: '0', active: 0, failed: 0, ready: 0 },
  },
  'suspending a job with satisfied expectations': {
    suspend: true, parallelism: 2, active: 2, completions: 4, backoffLimit: 6,
    want: { creations: 0, deletions: 2, active: 0, condition: ['Suspended', 'JobSuspended'], ready: 0, terminating: 2 },
  },
  'count ready pods when suspending a job with satisfied expectations': {
    suspend: true, parallelism: 2, active: 2, ready: 2, completions: 4, backoffLimit: 6,
    want: { creations: 0, deletions: 2, active: 0, condition: ['Suspended', 'JobSuspended'], ready: 0 },
  },
  'suspending a job with unsatisfied expectations': {
    suspend: true, parallelism: 2, active: 3, unsatisfied: true, completions: 4, backoffLimit: 6,
    want: { creations: 0, deletions: 0, active: 3, ready: 0, condition: undefined },
  },
  'count ready pods when suspending a job with unsatisfied expectations': {
    suspend: true, parallelism: 2, active: 3, ready: 3, unsatisfied: true, completions: 4, backoffLimit: 6,
    want: { creations: 0, deletions: 0, active: 3, ready: 3 },
  },
};

const NOW = Date.UTC(2026, 0, 1, 12);

function jobOf(r: Row): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'foobar',
      namespace: 'default',
      uid: 'job-uid',
      deletionTimestamp: r.deleting ? new Date(NOW).toISOString() : undefined,
    },
    spec: {
      parallelism: r.parallelism,
      completions: r.completions < 0 ? undefined : r.completions,
      backoffLimit: r.backoffLimit,
      completionMode: r.indexed ? 'Indexed' : undefined,
      suspend: r.suspend,
      selector: { matchLabels: { foo: 'bar' } },
      template: {
        metadata: { labels: { foo: 'bar' } },
        spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
      },
    },
    status: r.initial
      ? {
          active: r.initial.active,
          succeeded: r.initial.succeeded,
          failed: r.initial.failed,
          startTime: new Date(NOW).toISOString(),
        }
      : undefined,
  };
}

function podsOf(r: Row): Pod[] {
  const out: Pod[] = [];
  let n = 0;
  const pod = (phase: string, extra: Partial<Pod['metadata']> = {}, ready = false): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${n}`,
      uid: `pod-${n++}`,
      namespace: 'default',
      labels: { foo: 'bar' },
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'Job', name: 'foobar', uid: 'job-uid', controller: true },
      ],
      ...extra,
    },
    spec: { containers: [{ name: 'c' }] },
    status: {
      phase: phase as 'Running',
      conditions: ready ? [{ type: 'Ready', status: 'True' }] : [],
    },
  });
  for (let i = 0; i < (r.pending ?? 0); i++) out.push(pod('Pending'));
  for (let i = 0; i < (r.active ?? 0); i++) out.push(pod('Running', {}, i < (r.ready ?? 0)));
  for (let i = 0; i < (r.succeeded ?? 0); i++) out.push(pod('Succeeded'));
  for (let i = 0; i < (r.failed ?? 0); i++) out.push(pod('Failed'));
  for (let i = 0; i < (r.terminating ?? 0); i++)
    out.push(pod('Running', { deletionTimestamp: new Date(NOW).toISOString() }));
  for (const [ix, phase] of r.withIndexes ?? [])
    out.push(pod(phase as string, { annotations: { [JOB_COMPLETION_INDEX]: ix } }));
  return out;
}

describe('Job controller: upstream TestControllerSyncJob rows', () => {
  for (const [name, r] of Object.entries(rows)) {
    it(name, () => {
      const plan = planJobSync({
        job: jobOf(r),
        pods: podsOf(r),
        nowMs: NOW,
        satisfied: !r.unsatisfied,
        backoff:
          r.backoffFailures === undefined
            ? undefined
            : { failuresAfterLastSuccess: r.backoffFailures, lastFailureMs: NOW },
      });
      const w = r.want;
      const s = plan.status;
      expect(plan.create, 'creations').toBe(w.creations ?? 0);
      expect(plan.delete.length, 'deletions').toBe(w.deletions ?? 0);
      expect(s.active, 'active').toBe(w.active ?? 0);
      if (w.ready !== undefined) expect(s.ready, 'ready').toBe(w.ready);
      expect(s.succeeded, 'succeeded').toBe(w.succeeded ?? 0);
      expect(s.failed, 'failed').toBe(w.failed ?? 0);
      if (r.indexed) expect(s.completedIndexes, 'completedIndexes').toBe(w.completedIdxs ?? '');
      if (w.terminating !== undefined) expect(s.terminating, 'terminating').toBe(w.terminating);
      if (w.createdIndexes) expect(plan.indexes).toEqual(w.createdIndexes);
      const trueConds = (s.conditions ?? []).filter((c) => c.status === 'True');
      if (w.condition) {
        const [type, reason] = w.condition;
        const c = trueConds.find((x) => x.type === type);
        expect(c, `condition ${type}`).toBeDefined();
        if (reason) expect(c!.reason).toBe(reason);
        // a terminal condition is not set while pods are still being deleted
        if (type === 'FailureTarget') expect(trueConds.some((x) => x.type === 'Failed')).toBe(false);
      } else expect(trueConds).toEqual([]);
    });
  }
});

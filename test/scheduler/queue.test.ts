// SchedulingQueue: activeQ order, exponential backoff, unschedulablePods and the events/flushes
// that move them (after upstream's scheduling_queue_test.go), on a ManualClock.
import { describe, expect, it } from 'vitest';
import { SchedulingQueue } from '../../src/scheduler/queue.js';
import { ManualClock } from '../../src/util/clock.js';
import { makePod } from '../helpers/builders.js';

const pod = (name: string, priority = 0) => makePod(name).priority(priority).obj();

describe('SchedulingQueue', () => {
  it('pops by priority, then FIFO', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue({ clock });
    q.add(pod('low', 1));
    clock.advance(1);
    q.add(pod('high', 10));
    clock.advance(1);
    q.add(pod('mid', 5));
    clock.advance(1);
    q.add(pod('high2', 10));
    expect([1, 2, 3, 4].map(() => q.tryPop()!.pod.metadata.name)).toEqual(['high', 'high2', 'mid', 'low']);
    expect(q.tryPop()).toBeUndefined();
  });

  it('backoff doubles from 1 s up to 10 s', () => {
    const q = new SchedulingQueue({ clock: new ManualClock() });
    const qp = {
      pod: pod('p'),
      key: 'default/p',
      timestamp: 0,
      initialAttemptTimestamp: 0,
      attempts: 0,
      unschedulablePlugins: new Set<string>(),
    };
    const d = [1, 2, 3, 4, 5, 6].map((a) => q.backoffDuration({ ...qp, attempts: a }));
    expect(d).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
  });

  it('a failed pod with rejecting plugins waits in unschedulablePods until a relevant event', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue({
      clock,
      pluginEvents: new Map([['NodeResourcesFit', new Set(['NodeAdd', 'AssignedPodDelete'] as const)]]),
    });
    q.add(pod('p'));
    const p = q.tryPop()!;
    q.addUnschedulable(p, q.schedulingCycle, ['NodeResourcesFit']);
    expect(q.where('default/p')).toBe('unschedulable');
    q.moveAllToActiveOrBackoffQueue('AssignedPodAdd'); // not registered by NodeResourcesFit
    expect(q.where('default/p')).toBe('unschedulable');
    q.moveAllToActiveOrBackoffQueue('NodeAdd'); // within 1 s of the failure: still backing off
    expect(q.where('default/p')).toBe('backoff');
    clock.advance(1000);
    q.flushBackoffQCompleted();
    expect(q.where('default/p')).toBe('active');
  });

  it('status-only updates leave a parked pod parked; spec changes move it', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue({ clock });
    q.add(pod('p'));
    q.addUnschedulable(q.tryPop()!, q.schedulingCycle, ['X']);
    q.update(pod('p'), false);
    expect(q.where('default/p')).toBe('unschedulable');
    clock.advance(5000);
    q.update(pod('p'), true);
    expect(q.where('default/p')).toBe('active');
  });

  it("a move request during the pod's cycle sends it to backoffQ instead of unschedulablePods", () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue({ clock });
    q.add(pod('p'));
    const p = q.tryPop()!;
    const cycle = q.schedulingCycle;
    q.moveAllToActiveOrBackoffQueue('NodeAdd'); // happened while p was being scheduled
    q.addUnschedulable(p, cycle, ['NodeResourcesFit']);
    expect(q.where('default/p')).toBe('backoff');
  });

  it('errors (no rejecting plugin) back off; flushes run on the clock (1 s backoffQ, 5 min leftover)', async () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue({ clock });
    q.run();
    q.add(pod('err'));
    q.addUnschedulable(q.tryPop()!, q.schedulingCycle, []);
    expect(q.where('default/err')).toBe('backoff');
    q.add(pod('parked'));
    q.addUnschedulable(q.tryPop()!, q.schedulingCycle, ['InterPodAffinity']);
    clock.advance(1000);
    expect(q.where('default/err')).toBe('active');
    expect(q.where('default/parked')).toBe('unschedulable');
    const popped = q.pop();
    expect((await popped)!.pod.metadata.name).toBe('err');
    clock.advance(5 * 60_000);
    expect(q.where('default/parked')).toBe('unschedulable'); // exactly 5 min is not "longer than"
    clock.advance(30_000);
    expect(q.where('default/parked')).toBe('active');
    q.close();
    expect(await q.pop()).toBeDefined();
    expect(await q.pop()).toBeUndefined();
  });

  it('pop waits for a pod', async () => {
    const q = new SchedulingQueue({ clock: new ManualClock() });
    const p = q.pop();
    q.add(pod('late'));
    expect((await p)!.pod.metadata.name).toBe('late');
    expect(q.where('default/late')).toBe('inFlight');
  });
});

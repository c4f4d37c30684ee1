import { describe, it, expect } from 'vitest';
import type { Lease } from '../../src/api/types.js';
import { LeaderElector } from '../../src/controllers/leaderelection.js';
import { ManualClock } from '../../src/util/clock.js';
import { FakeApi, settle } from '../client/fake-api.js';

async function run(clock: ManualClock, ms: number) {
  const end = clock.now() + ms;
  for (;;) {
    await settle();
    const next = clock.peek();
    if (next === undefined || next > end) break;
    clock.runNext();
  }
  clock.advanceTo(end);
  await settle();
}

describe('leader election on a Lease', () => {
  it('exactly one of two candidates leads; the other takes over leaseDuration after the leader crashes', async () => {
    const api = new FakeApi();
    const clock = new ManualClock(0);
    const log: string[] = [];
    const mk = (id: string) =>
      new LeaderElector({
        api,
        clock,
        name: 'kube-controller-manager',
        identity: id,
        onStartedLeading: () => log.push(`${clock.now()} ${id} started`),
        onStoppedLeading: () => log.push(`${clock.now()} ${id} stopped`),
      });
    const a = mk('cm-a'),
      b = mk('cm-b');
    a.run();
    b.run();
    await run(clock, 30_000);
    expect([a.isLeader, b.isLeader].filter(Boolean).length).toBe(1);
    const leader = a.isLeader ? a : b,
      follower = a.isLeader ? b : a;
    const lease = await api.get<Lease>('leases', 'kube-system', 'kube-controller-manager');
    expect(lease.spec.holderIdentity).toBe(a.isLeader ? 'cm-a' : 'cm-b');
    const crashAt = clock.now();
    leader.stop();
    // not before the lease duration has passed without a renewal
    await run(clock, 14_000);
    expect(follower.isLeader).toBe(false);
    await run(clock, 6_000);
    expect(follower.isLeader).toBe(true);
    const took = follower.acquiredAt[0] - crashAt;
    expect(took).toBeGreaterThanOrEqual(15_000 - 2_000);
    expect(took).toBeLessThanOrEqual(15_000 + 2_000 + 2_000);
    const after = await api.get<Lease>('leases', 'kube-system', 'kube-controller-manager');
    expect(after.spec.holderIdentity).toBe(follower === a ? 'cm-a' : 'cm-b');
    expect(after.spec.leaseTransitions).toBe(1);
    follower.stop();
  });

  it('a leader that cannot renew for renewDeadline stops leading', async () => {
    const api = new FakeApi();
    const clock = new ManualClock(0);
    let stopped = 0;
    const a = new LeaderElector({
      api,
      clock,
      name: 'sched',
      identity: 'a',
      onStoppedLeading: () => stopped++,
    });
    a.run();
    await run(clock, 5_000);
    expect(a.isLeader).toBe(true);
    // the ApiServer becomes unreachable for this candidate
    const realGet = api.get.bind(api);
    api.get = (async () => {
      throw Object.assign(new Error('unreachable'), { code: 503 });
    }) as typeof api.get;
    await run(clock, 12_000);
    expect(a.isLeader).toBe(false);
    expect(stopped).toBe(1);
    api.get = realGet;
    a.stop();
  });
});

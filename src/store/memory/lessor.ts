/**
 * Leases for the in-memory store, as etcd's lessor keeps them: a granted TTL (clamped up to the
 * minimum, capped at 9e9 s), an expiry time that keepAlive pushes forward, and the set of keys
 * attached to the lease. Time comes from an injectable {@link Clock}, so tests and the simulation
 * expire leases by advancing a ManualClock instead of waiting.
 *
 * The lessor only books; deleting the attached keys (in one revision, in sorted key order) is the
 * store's job, which it does in `onExpire` and in `leaseRevoke`.
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import { StoreErrors, type LeaseId } from '../types.js';

/** etcd's minimum lease TTL with default flags: ceil(1.5 × election timeout 1 s) = 2 s. */
export const MIN_LEASE_TTL_SECONDS = 2;
/** etcd's MaxLeaseTTL (lease/lessor.go): 9,000,000,000 s. */
export const MAX_LEASE_TTL_SECONDS = 9_000_000_000;

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface MemLease {
  readonly id: LeaseId;
  /** granted TTL in seconds, after clamping */
  readonly ttl: number;
  /** expiry time in Clock milliseconds */
  expiry: number;
  /** attached keys */
  readonly keys: Set<string>;
  timer: TimerHandle | null;
}

export class Lessor {
  private readonly leases = new Map<LeaseId, MemLease>();
  private nextId: LeaseId = 1;

  constructor(
    private readonly clock: Clock,
    private readonly onExpire: (id: LeaseId) => void,
    private readonly minTtl = MIN_LEASE_TTL_SECONDS,
  ) {}

  /** etcd lessor.Grant: TTL too large → error; existing ID → error; TTL below the minimum → raised to it. */
  grant(ttl: number, id?: LeaseId): MemLease {
    if (ttl > MAX_LEASE_TTL_SECONDS) throw StoreErrors.leaseTtlTooLarge();
    let leaseId = id ?? 0;
    if (leaseId === 0) {
      while (this.leases.has(this.nextId)) this.nextId++;
      leaseId = this.nextId++;
    } else if (this.leases.has(leaseId)) {
      throw StoreErrors.leaseExists();
    }
    const granted = Math.max(Math.trunc(ttl), this.minTtl);
    const lease: MemLease = { id: leaseId, ttl: granted, expiry: 0, keys: new Set(), timer: null };
    this.leases.set(leaseId, lease);
    this.refresh(lease);
    return lease;
  }

  lookup(id: LeaseId): MemLease | undefined {
    return this.leases.get(id);
  }

  /** keepAlive: push the expiry to now + TTL; returns the TTL, or 0 for an unknown lease (etcd answers 0, no error). */
  renew(id: LeaseId): number {
    const lease = this.leases.get(id);
    if (!lease) return 0;
    this.refresh(lease);
    return lease.ttl;
  }

  /** remaining whole seconds (etcd truncates `Remaining().Seconds()`), or -1 for an unknown lease */
  remainingSeconds(id: LeaseId): number {
    const lease = this.leases.get(id);
    if (!lease) return -1;
    return Math.max(0, Math.trunc((lease.expiry - this.clock.now()) / 1000));
  }

  /** forget a lease (revoke or expiry) and stop its timer; returns it so the caller can delete its keys */
  remove(id: LeaseId): MemLease | undefined {
    const lease = this.leases.get(id);
    if (!lease) return undefined;
    if (lease.timer) this.clock.clearTimer(lease.timer);
    lease.timer = null;
    this.leases.delete(id);
    return lease;
  }

  attach(id: LeaseId, key: string): void {
    this.leases.get(id)?.keys.add(key);
  }

  detach(id: LeaseId, key: string): void {
    this.leases.get(id)?.keys.delete(key);
  }

  get size(): number {
    return this.leases.size;
  }

  /** stop every timer (store close) */
  close(): void {
    for (const lease of this.leases.values()) {
      if (lease.timer) this.clock.clearTimer(lease.timer);
      lease.timer = null;
    }
  }

  private refresh(lease: MemLease): void {
    lease.expiry = this.clock.now() + lease.ttl * 1000;
    this.arm(lease);
  }

  // Node timers overflow above 2^31-1 ms (they would fire at once), so long TTLs wait in steps.
  private arm(lease: MemLease): void {
    if (lease.timer) this.clock.clearTimer(lease.timer);
    const ms = Math.min(lease.expiry - this.clock.now(), MAX_TIMER_MS);
    lease.timer = this.clock.setTimer(() => {
      lease.timer = null;
      if (this.leases.get(lease.id) !== lease) return;
      if (this.clock.now() < lease.expiry) this.arm(lease);
      else this.onExpire(lease.id);
    }, ms);
  }
}

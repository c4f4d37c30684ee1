/**
 * Leader election on a coordination.k8s.io/v1 Lease (client-go tools/leaderelection with the
 * LeaseLock), as kube-controller-manager and kube-scheduler run it: of several instances exactly
 * one is active; the others take over once the leader stops renewing.
 *
 * - Every retryPeriod (2 s) a candidate reads the Lease. A record it has not seen before starts its
 *   own observation clock (client-go compares against the *local* time it observed the record,
 *   never the holder's timestamps, so clock skew does not matter).
 * - A lease held by someone else is taken only after leaseDuration (15 s) without a change;
 *   taking it sets holderIdentity, acquireTime, renewTime and increments leaseTransitions, with a
 *   resourceVersion compare-and-swap so that two candidates cannot both win.
 * - The leader renews every retryPeriod; if it cannot renew for renewDeadline (10 s) it stops
 *   leading (onStoppedLeading). A crashed leader (stop()) does not release the lease, so failover
 *   takes leaseDuration plus up to one retryPeriod — the classic ~15-17 s.
 */
import type { Lease } from '../api/types.js';
import { type ApiClient, isConflict, isNotFound } from '../client/api.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { rfc3339Micro } from '../api/time.js';

export interface LeaderElectionConfig {
  api: ApiClient;
  clock: Clock;
  namespace?: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  onNewLeader?: (identity: string) => void;
}

export class LeaderElector {
  private timer?: TimerHandle;
  private observed?: { holder?: string; renewTime?: string; rv?: string };
  private observedAtMs = 0;
  private lastRenewMs = 0;
  private leading = false;
  private stopped = false;
  private lastLeader?: string;
  /** virtual times of acquisitions by this candidate */
  readonly acquiredAt: number[] = [];

  constructor(private readonly c: LeaderElectionConfig) {}

  get isLeader(): boolean {
    return this.leading;
  }
  private get ns(): string {
    return this.c.namespace ?? 'kube-system';
  }
  private get leaseMs(): number {
    return this.c.leaseDurationMs ?? 15_000;
  }
  private get retryMs(): number {
    return this.c.retryPeriodMs ?? 2_000;
  }

  run(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** a crash: stop without releasing the lease */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.c.clock.clearTimer(this.timer);
    if (this.leading) {
      this.leading = false;
      this.c.onStoppedLeading?.();
    }
  }

  /**
   * A graceful exit (client-go ReleaseOnCancel): stop, and when leading hand the Lease back —
   * holderIdentity cleared, leaseDurationSeconds 1 — so that another candidate takes it at its
   * next retry instead of after leaseDuration.
   */
  async release(): Promise<void> {
    const wasLeading = this.leading;
    this.stop();
    if (!wasLeading) return;
    try {
      const lease = await this.c.api.get<Lease>('leases', this.ns, this.c.name);
      if (lease.spec.holderIdentity !== this.c.identity) return;
      const now = rfc3339Micro(this.c.clock.now());
      await this.c.api.update<Lease>('leases', {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        },
      });
    } catch {
      // the others take over after leaseDuration, as after a crash
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.c.clock.setTimer(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    const ok = await this.tryAcquireOrRenew().catch(() => false);
    if (this.stopped) return;
    const now = this.c.clock.now();
    if (ok) {
      this.lastRenewMs = now;
      if (!this.leading) {
        this.leading = true;
        this.acquiredAt.push(now);
        this.c.onStartedLeading?.();
      }
    } else if (this.leading && now - this.lastRenewMs >= (this.c.renewDeadlineMs ?? 10_000)) {
      this.leading = false;
      this.c.onStoppedLeading?.();
    }
    this.schedule(this.retryMs);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.c.clock.now();
    const me = this.c.identity;
    let lease: Lease;
    try {
      lease = await this.c.api.get<Lease>('leases', this.ns, this.c.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await this.c.api.create<Lease>('leases', {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.c.name, namespace: this.ns },
          spec: {
            holderIdentity: me,
            leaseDurationSeconds: Math.round(this.leaseMs / 1000),
            acquireTime: rfc3339Micro(now),
            renewTime: rfc3339Micro(now),
            leaseTransitions: 0,
          },
        });
        this.observe({ holder: me, renewTime: rfc3339Micro(now) }, now);
        return true;
      } catch {
        return false;
      }
    }
    const rec = {
      holder: lease.spec.holderIdentity,
      renewTime: lease.spec.renewTime,
      rv: lease.metadata.resourceVersion,
    };
    if (!this.observed || this.observed.holder !== rec.holder || this.observed.renewTime !== rec.renewTime)
      this.observe(rec, now);
    const heldByOther = !!rec.holder && rec.holder !== me;
    if (heldByOther && this.observedAtMs + this.leaseMs > now) return false;
    const spec = {
      ...lease.spec,
      holderIdentity: me,
      renewTime: rfc3339Micro(now),
      leaseDurationSeconds: Math.round(this.leaseMs / 1000),
    };
    if (rec.holder !== me) {
      spec.acquireTime = rfc3339Micro(now);
      spec.leaseTransitions = (lease.spec.leaseTransitions ?? 0) + 1;
    }
    try {
      const u = await this.c.api.update<Lease>('leases', { ...lease, spec });
      this.observe({ holder: me, renewTime: u.spec.renewTime, rv: u.metadata.resourceVersion }, now);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  private observe(rec: { holder?: string; renewTime?: string; rv?: string }, now: number): void {
    this.observed = rec;
    this.observedAtMs = now;
    if (rec.holder && rec.holder !== this.lastLeader) {
      this.lastLeader = rec.holder;
      this.c.onNewLeader?.(rec.holder);
    }
  }
}

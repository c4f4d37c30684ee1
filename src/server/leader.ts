/**
 * Several `kubesim serve` over one etcd, as HA kube-apiservers: every one serves the API (each
 * HTTP watch is an etcd watch, so a watch on one sees the writes made through another, and 409s
 * come from etcd's compare-and-swap whichever server took the write), and exactly one — the holder
 * of the Lease kube-system/kubesim-serve — runs the simulation's components: controllers,
 * scheduler, kubelet model. The election is kube-controller-manager's and kube-scheduler's
 * (client-go tools/leaderelection on a LeaseLock, controllers/leaderelection.ts) with their flags
 * --leader-elect-lease-duration / -renew-deadline / -retry-period.
 *
 * It runs on the wall clock, not the simulation's: a Lease says whether a process is alive, which
 * --speed and --paused do not change. Losing the Lease ends the process, as upstream's
 * OnStoppedLeading does (klog "leaderelection lost"); a graceful stop hands the Lease back
 * (ReleaseOnCancel), so a successor does not wait leaseDuration.
 *
 * Simplified: upstream elects the controller-manager and the scheduler on two Leases, which may be
 * held by different processes; here one Lease covers both and the kubelet model too.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ServerClient } from '../client/server-client.js';
import { LeaderElector } from '../controllers/leaderelection.js';
import type { Simulation } from '../sim/simulation.js';
import { WallClock } from '../util/clock.js';

/** the Lease the serves elect on, in kube-system */
export const SERVE_LEASE = 'kubesim-serve';

export interface LeaderElectionOptions {
  /** --leader-elect-lease-duration (default 15 s) */
  leaseDurationMs?: number;
  /** --leader-elect-renew-deadline (default 10 s) */
  renewDeadlineMs?: number;
  /** --leader-elect-retry-period (default 2 s) */
  retryPeriodMs?: number;
}

export interface LeaderHooks {
  /** this process became the leader; its components are starting */
  onStarted(identity: string): void;
  /** another process is the leader now */
  onNewLeader(identity: string): void;
  /**
   * this process could not renew within renewDeadline, or its components failed to start: they must
   * not run on
   */
  onLost(identity: string, reason: string): void;
}

export interface ServeElection {
  /** this process's holderIdentity: hostname_uuid, as kube-controller-manager makes it */
  identity: string;
  readonly leading: boolean;
  /** stop campaigning; hand the Lease back when holding it */
  release(): Promise<void>;
}

/** Campaign for the Lease; the components of `sim` start once it is won. */
export function electServeLeader(
  sim: Simulation,
  opts: LeaderElectionOptions,
  hooks: LeaderHooks,
): ServeElection {
  const identity = `${hostname()}_${randomUUID()}`;
  const clock = new WallClock();
  const elector = new LeaderElector({
    api: new ServerClient(sim.server, { clock }),
    clock,
    name: SERVE_LEASE,
    identity,
    leaseDurationMs: opts.leaseDurationMs,
    renewDeadlineMs: opts.renewDeadlineMs,
    retryPeriodMs: opts.retryPeriodMs,
    onStartedLeading: () => {
      hooks.onStarted(identity);
      sim.startComponents().catch((e) => hooks.onLost(identity, `starting the components failed: ${e}`));
    },
    onStoppedLeading: () => {
      if (!releasing) hooks.onLost(identity, 'leaderelection lost');
    },
    onNewLeader: (holder) => {
      if (holder !== identity) hooks.onNewLeader(holder);
    },
  });
  let releasing = false;
  elector.run();
  return {
    identity,
    get leading() {
      return elector.isLeader;
    },
    release: () => {
      releasing = true;
      return elector.release();
    },
  };
}

/**
 * Lease renewals nobody can tell from not sending them (issue 26). A healthy kubelet renews its
 * node Lease every 10 s (pkg/kubelet/nodelease: renew with the Lease it got back last time,
 * renewTime = now); at 5,000 nodes those are four requests in five. In a simulation whose requests
 * take no virtual time (no `settings.apiLatency`, no watch latency) a renewal that is alone in its
 * instant — no other timer fires at that virtual time, nothing else is in flight, the kubelet's
 * client bucket has a token, the node reports Ready and its last renewal succeeded — has exactly
 * these effects, and no others:
 *
 * - the client takes a token from the node's bucket and counts a request with a latency of 0;
 * - the server's max-in-flight filter admits it alone (accepted + 1, peak at least 1);
 * - the store writes the Lease with the new renewTime at the next revision, and the Lease watchers
 *   (the controller-manager's shared informer: the node lifecycle controller, which takes the
 *   renewal as a probe of the node's health at that instant, and the garbage collector, for which a
 *   renewal changes no owner reference or finalizer) see it;
 * - the kubelet keeps the returned Lease for its next renewal.
 *
 * Such a renewal is elided: the fleet books the first two (`RenewalElisionHost.book`), the node
 * lifecycle controller reads the time from {@link LazyRenewals.elidedAt} (its NodeLeaseFreshness),
 * and nothing is written. What is not reproduced: the store revision the renewal would have taken
 * (every later resourceVersion is lower by the number of renewals elided before it; no output of a
 * simulation includes one) and the Lease's renewTime in the store until the kubelet next writes it.
 *
 * Elided renewals are not even timers: once a beat is elided, the node's next renewal times
 * (each the previous plus the renew interval, the same arithmetic as the clock's timers) wait in a
 * heap. Before each instant of the simulation fires, {@link LazyRenewals.catchUp} books those that
 * fell before it — alone by construction: no timer fired at their time, but for other nodes'
 * renewals due at the very same time (phases are doubles spaced 2^-12 ms apart: at 5,000 nodes two
 * coincide in about one run in three), which were in flight together and are booked so
 * (the in-flight peak) — and turns one due at the
 * instant itself into a real timer placed where its own timer would have been among that instant's
 * timers (ManualClock.setTimerAt: after the timers set before the previous renewal, before those set
 * after). A renewal also becomes a real timer when the node stops reporting Ready (its beat would
 * post status), and when a request leaves the node's bucket without a token for it. A real beat that
 * turns out to be alone is elided and the node goes back to the heap.
 */
import type { TimerHandle } from '../util/clock.js';
import { BinaryHeap } from '../util/binary-heap.js';

/** what the simulation driving the fleet provides for elision (sim/simulation.ts) */
export interface RenewalElisionHost {
  /** ManualClock.setTimerAt: a timer at `at` ordered as if set at virtual time `createdAt` */
  setTimerAt(fn: () => void, at: number, createdAt: number): TimerHandle;
  /**
   * the timer firing now is the first of its instant, no other is due at this instant, and no
   * request is in flight
   */
  lone(): boolean;
  /** no request is in flight */
  idle(): boolean;
  /** the tokens a request of node `node`'s kubelet would find in its client bucket at `atMs` */
  tokensAt(node: string, atMs: number): number;
  /**
   * books an elided renewal of node `node` sent at `atMs`, with `inflight` renewals (itself
   * included) sent in that same instant: its client token and counters, the server's flow control
   */
  book(node: string, atMs: number, inflight: number): void;
}

/** the per-node state the fleet keeps for elision */
export interface LazyNode {
  readonly name: string;
  /** node index (registration order): the order of renewals due at one instant */
  readonly index: number;
  /** the next renewal, waiting in the heap (undefined: the node's beats are real timers) */
  lazyAt?: number;
  /** the renewal before `lazyAt`: when its timer would have been set */
  lazyPrev?: number;
  /** the last renewal elided */
  elidedAt?: number;
}

interface Entry {
  at: number;
  node: LazyNode;
}

export class LazyRenewals {
  private readonly heap = new BinaryHeap<Entry>(
    (x, y) => x.at < y.at || (x.at === y.at && x.node.index < y.node.index),
  );
  /** renewals elided, and elided ones that found a request in flight (a broken precondition: 0) */
  stats = { elided: 0, violations: 0 };

  /**
   * @param every the renew interval, ms
   * @param onElided the fleet's own bookkeeping of an elided renewal (its renewal counter)
   * @param fire turn the node's renewal at `at` into a real timer set as at `prev`
   */
  constructor(
    private readonly host: RenewalElisionHost,
    private readonly every: number,
    private readonly onElided: (n: LazyNode) => void,
    private readonly fire: (n: LazyNode, at: number, prev: number) => void,
  ) {}

  /** a real beat at `now` that would only renew the Lease: elided (the node's renewals go lazy) when alone */
  tryElide(n: LazyNode, now: number): boolean {
    if (!this.host.lone() || this.host.tokensAt(n.name, now) < 1) return false;
    this.elide(n, now, 1);
    return true;
  }

  /** the node's renewals stop (failure, deletion) */
  stop(n: LazyNode): void {
    n.lazyAt = n.lazyPrev = undefined;
  }

  /** the node's next renewal becomes a real timer (its beat has more to do than renew) */
  wake(n: LazyNode): void {
    const at = n.lazyAt;
    const prev = n.lazyPrev;
    if (at === undefined || prev === undefined) return;
    this.stop(n);
    this.fire(n, at, prev);
  }

  /** a request took a token of the node's bucket: the next renewal must still find one */
  tokenTaken(n: LazyNode): void {
    if (n.lazyAt !== undefined && this.host.tokensAt(n.name, n.lazyAt) < 1) this.wake(n);
  }

  /**
   * Before the instant at `t` fires: book the renewals due before it, and make those due at it
   * real timers (`through`: book those due at `t` too — the end of a run, when nothing else fires).
   */
  catchUp(t: number, through = false): void {
    const h = this.heap;
    for (let e = h.peek(); e; e = h.peek()) {
      if (e.node.lazyAt !== e.at) {
        h.pop();
        continue;
      }
      if (e.at > t || (e.at === t && !through)) {
        if (e.at !== t) return;
        h.pop();
        this.wake(e.node);
        continue;
      }
      h.pop();
      if (!this.host.idle()) this.stats.violations++;
      // renewals of several nodes due at the same (non-)instant were in flight together
      const group = [e.node];
      for (;;) {
        let top = h.peek();
        for (; top && top.node.lazyAt !== top.at; top = h.peek()) h.pop();
        if (!top || top.at !== e.at) break;
        group.push(top.node);
        h.pop();
      }
      for (const n of group) this.elide(n, e.at, group.length);
    }
  }

  private elide(n: LazyNode, at: number, inflight: number): void {
    this.host.book(n.name, at, inflight);
    n.elidedAt = at;
    this.stats.elided++;
    this.onElided(n);
    // the next renewal: what the beat's own timer would have been (ManualClock: now + max(0, ms))
    const next = at + Math.max(0, this.every);
    n.lazyAt = next;
    n.lazyPrev = at;
    if (this.host.tokensAt(n.name, next) < 1) this.wake(n);
    else this.heap.push({ at: next, node: n });
  }
}

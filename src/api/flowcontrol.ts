/**
 * Max-in-flight request limiting like kube-apiserver's `--max-requests-inflight` (default 400)
 * and `--max-mutating-requests-inflight` (default 200) filter (the pre-APF WithMaxInFlightLimit):
 * a request that would exceed its class's limit is rejected at once with 429 TooManyRequests
 * and a Retry-After of 1 s. Watches are long-running and not counted. A limit of 0 disables it.
 *
 * "In flight" is measured between a request's start and its promise settling, so a burst of
 * concurrent calls (Promise.all) hits the limit exactly as concurrent HTTP requests would.
 */
import { type ApiError, tooManyRequests } from './errors.js';

export interface FlowControlOptions {
  /** read-only requests in flight (get, list); default 400, 0 = unlimited */
  maxRequestsInflight?: number;
  /** mutating requests in flight (create, update, delete, bind); default 200, 0 = unlimited */
  maxMutatingRequestsInflight?: number;
}

/** Observable counters, e.g. to plot 429s in a simulation. */
export interface FlowControlStats {
  inflight: number;
  inflightMutating: number;
  peakInflight: number;
  peakInflightMutating: number;
  accepted: number;
  rejected: number;
  rejectedMutating: number;
}

/** The message the max-in-flight filter writes with its 429. */
export const TOO_MANY_REQUESTS_MSG = 'Too many requests, please try again later.';

export class FlowControl {
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  private readonly s: FlowControlStats = {
    inflight: 0,
    inflightMutating: 0,
    peakInflight: 0,
    peakInflightMutating: 0,
    accepted: 0,
    rejected: 0,
    rejectedMutating: 0,
  };

  constructor(opts: FlowControlOptions = {}) {
    const r = opts.maxRequestsInflight ?? 400;
    const m = opts.maxMutatingRequestsInflight ?? 200;
    if (!Number.isInteger(r) || r < 0)
      throw new TypeError(`flowControl.maxRequestsInflight must be an integer >= 0, got ${r}`);
    if (!Number.isInteger(m) || m < 0)
      throw new TypeError(`flowControl.maxMutatingRequestsInflight must be an integer >= 0, got ${m}`);
    this.maxRequestsInflight = r;
    this.maxMutatingRequestsInflight = m;
  }

  /** Admit a request or return the 429 to fail it with. Call {@link release} when it settles. */
  tryAcquire(mutating: boolean): ApiError | undefined {
    const s = this.s;
    if (mutating) {
      if (this.maxMutatingRequestsInflight > 0 && s.inflightMutating >= this.maxMutatingRequestsInflight) {
        s.rejected++;
        s.rejectedMutating++;
        return tooManyRequests(TOO_MANY_REQUESTS_MSG, 1);
      }
      s.inflightMutating++;
      if (s.inflightMutating > s.peakInflightMutating) s.peakInflightMutating = s.inflightMutating;
    } else {
      if (this.maxRequestsInflight > 0 && s.inflight >= this.maxRequestsInflight) {
        s.rejected++;
        return tooManyRequests(TOO_MANY_REQUESTS_MSG, 1);
      }
      s.inflight++;
      if (s.inflight > s.peakInflight) s.peakInflight = s.inflight;
    }
    s.accepted++;
    return undefined;
  }

  /**
   * Counts a request that was admitted with `inflight` − 1 others of its class in flight (all
   * answered in the same instant, none rejected) without running it: what tryAcquire + release
   * would have counted (the kubelet fleet's elided Lease renewals, kubelet/lease-elision.ts).
   */
  bookAdmitted(mutating: boolean, inflight: number): void {
    const s = this.s;
    s.accepted++;
    if (mutating) s.peakInflightMutating = Math.max(s.peakInflightMutating, inflight);
    else s.peakInflight = Math.max(s.peakInflight, inflight);
  }

  release(mutating: boolean): void {
    if (mutating) this.s.inflightMutating--;
    else this.s.inflight--;
  }

  /** A snapshot of the counters. */
  /** requests of a class in flight now */
  inflightOf(mutating: boolean): number {
    return mutating ? this.s.inflightMutating : this.s.inflight;
  }

  stats(): FlowControlStats {
    return { ...this.s };
  }
}

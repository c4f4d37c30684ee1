/**
 * The ApiServer's request latency model: how long a request holds its max-in-flight seat
 * (flowcontrol.ts) before it is answered. A request's service time is a seeded log-normal draw
 * around the median of its class (read: get, list; mutating: create, update, delete, bind), plus
 * `perInflightMs` for every request of its class already in flight when it is admitted — a
 * stand-in for the CPU and etcd contention that makes a busy kube-apiserver slower. Because the
 * seat is held for the whole service time, more concurrent clients (more controller workers) mean
 * more requests in flight, longer answers, and past the limit 429s: the pressure the in-flight
 * limits exist for.
 *
 * Simplified: no per-resource or per-verb costs (a list of 10,000 pods costs what a get does), no
 * etcd round trips modelled apart from this, no API Priority and Fairness queues (the pre-APF
 * max-in-flight filter answers 429 at once).
 */
import type { Rng } from '../util/rng.js';

export interface RequestLatency {
  /** median service time of a read (get, list), ms */
  readMs: number;
  /** median service time of a mutating request, ms */
  writeMs: number;
  /** sigma of the log-normal around the median (0: always the median) */
  sigma: number;
  /** added per request of the same class already in flight, ms */
  perInflightMs: number;
}

/** The service time of one request, ms (0 when the model is all zeros). */
export function serviceTimeMs(m: RequestLatency, rng: Rng, mutating: boolean, inflight: number): number {
  const median = mutating ? m.writeMs : m.readMs;
  const base = median > 0 ? (m.sigma > 0 ? rng.logNormal(median, m.sigma) : median) : 0;
  return base + m.perInflightMs * inflight;
}

/**
 * Watch bytes batched per socket: a store change reaches every watcher in the same microtask, and
 * writing each event to each watcher's socket on its own costs a chunk, a cork/uncork and a syscall
 * per event per watcher. Instead each watcher's events wait in its outbox and go out as one HTTP
 * chunk when the current turn of the event loop ends (one setImmediate for all outboxes; under a
 * stream of writes flushes are spaced by flushGap). Watchers that received the same events
 * since the last flush (the usual case: same resource, no selector) share one framed chunk, written
 * to each socket as it is. kube-apiserver writes each event with its own Write + Flush on a
 * goroutine per watcher (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go
 * serveWatchHandler); in one thread the batch is what keeps the cost per event, not per event ×
 * watcher.
 */
import type { ServerResponse } from 'node:http';

/**
 * Flush spacing. Each flush writes to every socket with news (hundreds of watchers: milliseconds,
 * one syscall each), and an event waits in its outbox until the next flush starts and then until
 * its socket's turn comes within it. The gap between two flush starts is chosen from the last
 * flush's CPU time `cpu` and wall time `took` (larger when the process is preempted mid-flush):
 *  - cost: at least SPREAD × cpu, so flushes use at most 1 / SPREAD of the thread and events
 *    gather into fewer, larger chunks, but never under MIN_GAP_MS;
 *  - latency budget: gap + took ≤ OUTBOX_BUDGET_MS, the most an event waits here — this caps
 *    the cost rule when flushes grow long;
 *  - floor: never under 2 × cpu, so however costly the sockets, flushes use at most half the
 *    thread (the budget then gives way: a saturated server gives up latency, not throughput).
 * Wall time alone (the rule before) read a loaded machine's preemption as flush cost and spaced
 * flushes up to 40 ms apart. On an idle 2-core machine 500 watchers cost ~2–3 ms per flush: gap
 * ~10–15 ms; a few watchers: 5 ms.
 */
const MIN_GAP_MS = 5;
const SPREAD = 5;
const OUTBOX_BUDGET_MS = 30;

/** the time to keep between a flush's start and the next one's */
function flushGap(cpu: number, took: number): number {
  return Math.max(2 * cpu, Math.min(OUTBOX_BUDGET_MS - took, Math.max(MIN_GAP_MS, cpu * SPREAD)));
}
const CRLF = Buffer.from('\r\n');

/** framed chunks made in one flush, by their first event */
type Joins = Map<Buffer, { parts: Buffer[]; bytes: Buffer }[]>;

export class Outbox {
  private chunks: Buffer[] = [];
  private closed = false;
  /**
   * batch: false writes every event at once through the response (the unbatched path, kept for
   * `kubesim bench watch`). The response must be chunked (Transfer-Encoding set by the caller) and
   * its headers sent before the first flush: batches are framed here and written to the socket.
   */
  constructor(
    private readonly res: ServerResponse,
    private readonly batch = true,
  ) {}

  /** queue bytes; they are written when the current turn of the event loop ends */
  push(bytes: Buffer): void {
    if (this.closed) return;
    if (!this.batch) this.res.write(bytes);
    else if (this.chunks.push(bytes) === 1) {
      waiting.push(this);
      if (!scheduled) {
        scheduled = true;
        const wait = lastFlush + gap - performance.now();
        if (wait > 0) setTimeout(flushAll, wait);
        else setImmediate(flushAll);
      }
    }
  }

  /** write what waits now */
  flush(joins: Joins = new Map()): void {
    const parts = this.chunks;
    if (parts.length === 0) return;
    this.chunks = [];
    const socket = this.res.socket;
    if (this.closed || !socket || this.res.writableEnded) return;
    socket.write(framed(parts, joins));
  }

  /** flush, then never write again (before the response ends) */
  close(): void {
    this.flush();
    this.closed = true;
  }
}

let lastFlush = -Infinity;
/** the time to keep between the last flush's start and the next one */
let gap = MIN_GAP_MS;
let scheduled = false;
let waiting: Outbox[] = [];

/** `parts` as one HTTP/1.1 chunk, shared with any other outbox of this flush that holds the same parts */
function framed(parts: Buffer[], joins: Joins): Buffer {
  let same = joins.get(parts[0]!);
  if (!same) joins.set(parts[0]!, (same = []));
  for (const j of same)
    if (j.parts.length === parts.length && j.parts.every((b, i) => b === parts[i])) return j.bytes;
  const size = parts.reduce((n, b) => n + b.length, 0);
  const bytes = Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), ...parts, CRLF]);
  same.push({ parts, bytes });
  return bytes;
}

function flushAll(): void {
  scheduled = false;
  lastFlush = performance.now();
  const cpu0 = process.cpuUsage();
  const boxes = waiting;
  waiting = [];
  const joins: Joins = new Map();
  for (const box of boxes) box.flush(joins);
  const cpu = process.cpuUsage(cpu0);
  gap = flushGap((cpu.user + cpu.system) / 1000, performance.now() - lastFlush);
}

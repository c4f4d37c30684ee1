/**
 * Watch bytes batched per socket: a store change reaches every watcher in the same microtask, and
 * writing each event to each watcher's socket on its own costs a chunk, a cork/uncork and a syscall
 * per event per watcher. Instead each watcher's events wait in its outbox and go out as one HTTP
 * chunk when the current turn of the event loop ends (one setImmediate for all outboxes; under a
 * stream of writes at most one flush per FLUSH_EVERY_MS). Watchers that received the same events
 * since the last flush (the usual case: same resource, no selector) share one framed chunk, written
 * to each socket as it is. kube-apiserver writes each event with its own Write + Flush on a
 * goroutine per watcher (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go
 * serveWatchHandler); in one thread the batch is what keeps the cost per event, not per event ×
 * watcher.
 */
import type { ServerResponse } from 'node:http';

/**
 * the shortest time between two flushes: an event that finds the outboxes idle goes out when the
 * current turn ends; under a stream of writes each watcher's events are gathered over this long,
 * so writes to sockets are at most one per socket per this long however fast the store changes
 */
const FLUSH_EVERY_MS = 10;
/**
 * a flush writes to every socket with news (hundreds of watchers: milliseconds): the next flush
 * waits at least this many times as long, so socket writes take at most 1 / (1 + this) of the
 * thread however many watchers there are, and events gather into fewer, larger chunks
 */
const FLUSH_SPREAD = 4;
/** the longest wait between flushes, whatever the last one took (bounds the added latency) */
const MAX_FLUSH_WAIT_MS = 40;
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
        const wait = lastFlush + flushGap - performance.now();
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
let flushGap = FLUSH_EVERY_MS;
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
  const boxes = waiting;
  waiting = [];
  const joins: Joins = new Map();
  for (const box of boxes) box.flush(joins);
  const took = performance.now() - lastFlush;
  flushGap = Math.min(MAX_FLUSH_WAIT_MS, Math.max(FLUSH_EVERY_MS, took * (1 + FLUSH_SPREAD)));
}

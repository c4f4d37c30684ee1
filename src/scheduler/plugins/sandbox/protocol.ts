/**
 * What the plugin host (host.ts, kubesim's thread) and the plugin worker (worker.ts) say to each
 * other. One request at a time, answered synchronously: the host posts a request on a
 * MessagePort, bumps `ctl[REQUEST]` (the worker, waiting on it between calls, takes the request
 * with receiveMessageOnPort), then blocks in Atomics.wait on `ctl[DONE]`; the worker answers on the
 * port, then sets `ctl[DONE]` and notifies; the host takes the answer with receiveMessageOnPort. The worker
 * bumps `ctl[PROGRESS]` after every call of the plugin's function, so the host can tell one slow
 * call (no progress for longer than the call limit) from a batch of many quick ones.
 *
 * Pods and nodes cross once: the host numbers every object it sends (`defs`) and then refers to it
 * by number; the worker keeps a frozen copy per number (read-only views for the plugin).
 */

import type { MessagePort } from 'node:worker_threads';

/** Int32 indices into the control SharedArrayBuffer */
export const DONE = 0;
export const PROGRESS = 1;
/** bumped (and notified) by the host after it posts a request: the worker waits on it between calls */
export const REQUEST = 2;
export const CTL_INTS = 3;

/**
 * How long each side polls its control word before it sleeps in Atomics.wait, ms. A thread asleep
 * on an idle core (a halted vCPU) takes tens of µs to wake, as long as a WASM plugin's whole call;
 * a cheap call is answered, and the next pod's request posted, within this time, so neither side
 * sleeps between the pods of a run (the scheduler's shard workers spin the same way).
 */
const SPIN_MS = 0.2;

/** Polls `ctl[index]` while it still holds `value`, for at most SPIN_MS; the caller then sleeps. */
export function spinWhile(ctl: Int32Array, index: number, value: number): void {
  for (
    const end = performance.now() + SPIN_MS;
    Atomics.load(ctl, index) === value && performance.now() < end;
  );
}

/** What the worker is started with (workerData). */
export interface WorkerInit {
  ctl: SharedArrayBuffer;
  port: MessagePort;
  /** how to say the plugin's name in errors before it is loaded: the file */
  label: string;
  source: { kind: 'js'; path: string } | { kind: 'wasm'; bytes: Uint8Array };
  memoryMiB: number;
}

/** The worker's first answer, once the module is loaded (or failed to load). */
export type LoadAnswer =
  | {
      ok: true;
      name: string;
      isScore: boolean;
      isFilter: boolean;
      normalize?: unknown;
    }
  | { ok: false; error: string };

/** Score or filter a batch of nodes with a TS/JS plugin. */
export interface JsRequest {
  op: 'score' | 'filter';
  pod: number;
  /** node object number per node of the batch */
  nodes: Int32Array;
  /**
   * pods on node i: the next podCount[i] numbers of podIds, or -1: the same pods as the last time
   * this node's number was sent
   */
  podCount: Int32Array;
  podIds: Int32Array;
  /** objects not sent before: [number, object] */
  defs: [number, unknown][];
}

/** Score a batch with a WASM plugin over the copy of the node table in `shared` (layout in host.ts). */
export interface WasmRequest {
  op: 'wasm';
  /** a new shared buffer when the previous one became too small */
  shared?: SharedArrayBuffer;
  /** extent of the table, starting at address TABLE_HEADER: the slots follow it */
  tableBytes: number;
  /** [address, bytes] pairs of what changed since the last request (copied into the shared buffer) */
  regions: Int32Array;
  /**
   * [address, bytes] pairs of the header and every live column: what a memory that holds no copy
   * yet (a new worker, a new shared buffer, a memory instantiated again) copies instead
   */
  all: Int32Array;
  header: number;
  count: number;
  podMilliCpu: number;
  podMemory: number;
}

export type Request = JsRequest | WasmRequest;

export type Answer =
  | {
      ok: true;
      scores?: Float64Array;
      /** filter verdicts per node: 0 fits, k > 0 the reason texts[k − 1] (one clone per distinct text) */
      verdicts?: Int32Array;
      texts?: string[];
    }
  | { ok: false; error: string };

/**
 * Runs a user plugin contained: in a worker thread of its own (worker.ts) with a V8 heap limit,
 * called synchronously — the scheduling cycle is synchronous — and stopped when a call or the
 * pod's cycle runs over its time limit (limits.ts). The thread is what makes an endless loop
 * stoppable (`Worker.terminate`), bounds a leaking plugin's heap without touching kubesim's (V8
 * `resourceLimits`: the worker dies with ERR_WORKER_OUT_OF_MEMORY, kubesim goes on), and keeps the
 * plugin's objects apart from kubesim's (structured clones, frozen in the worker). A WASM plugin
 * gets its own memory with a maximum instead of the node table's (worker.ts).
 *
 * A stopped worker is replaced on the next call, so that with --plugin-errors=continue the next
 * pod's cycle runs the plugin afresh (its module state is lost).
 *
 * This is containment of mistakes, not a security boundary: the plugin runs with kubesim's
 * privileges and can still use node:fs or node:child_process.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { compiledModulePath } from '../../../util/paths.js';
import type { PluginLimits } from './limits.js';
import {
  CTL_INTS,
  DONE,
  PROGRESS,
  REQUEST,
  spinWhile,
  type Answer,
  type LoadAnswer,
  type Request,
  type WorkerInit,
} from './protocol.js';

/** A plugin failed (load, call, limit); the message says why, without the plugin's name (the caller adds it). */
export class PluginFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginFailure';
  }
}

type Loaded = Extract<LoadAnswer, { ok: true }>;

export class PluginSandbox {
  private worker?: Worker;
  private port?: MessagePort;
  private ctl = new Int32Array(new SharedArrayBuffer(CTL_INTS * 4));
  /** bumped each time a worker starts; object numbering (user.ts) restarts with it */
  generation = 0;
  /** why the last worker ended, when it ended by itself (set by the exit/error events) */
  private ended?: string;
  private loaded?: Loaded;

  constructor(
    private readonly label: string,
    private readonly source: WorkerInit['source'],
    readonly limits: PluginLimits,
  ) {}

  /** Starts the worker and loads the plugin (blocking); what the module declares. */
  start(): Loaded {
    const filename = compiledModulePath('scheduler/plugins/sandbox/worker');
    if (!existsSync(filename))
      throw new PluginFailure(`the plugin worker ${filename} is missing; run \`npm run build\``);
    const { port1, port2 } = new MessageChannel();
    this.ctl = new Int32Array(new SharedArrayBuffer(CTL_INTS * 4));
    const init: WorkerInit = {
      ctl: this.ctl.buffer as SharedArrayBuffer,
      port: port2,
      label: this.label,
      source: this.source,
      memoryMiB: this.limits.memoryMiB,
    };
    const worker = new Worker(filename, {
      workerData: init,
      transferList: [port2],
      resourceLimits: {
        maxOldGenerationSizeMb: this.limits.memoryMiB,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(4, this.limits.memoryMiB >> 3)),
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    port1.unref();
    this.ended = undefined;
    worker.on('error', (e: Error & { code?: string }) => {
      this.ended =
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `ran out of memory: its JavaScript heap reached the ${this.limits.memoryMiB} MiB limit (--plugin-memory)`
          : `its thread ended: ${e.message}`;
    });
    this.worker = worker;
    this.port = port1;
    this.generation++;
    const a = this.wait(this.limits.loadMs, Infinity, 'loading') as LoadAnswer;
    if (!a.ok) {
      this.stop();
      throw new PluginFailure(a.error);
    }
    this.loaded = a;
    return a;
  }

  /**
   * One request, answered synchronously. `deadline` (performance.now() ms) ends the pod's cycle
   * budget. Throws PluginFailure when the plugin failed or ran over a limit (the worker is then stopped).
   */
  call(req: Request, deadline: number, transfer: Transferable[] = []): Answer & { ok: true } {
    if (!this.worker) this.start();
    // read before posting: the worker may show progress before this thread looks
    const before = Atomics.load(this.ctl, PROGRESS);
    this.port!.postMessage(req, transfer as never);
    Atomics.add(this.ctl, REQUEST, 1);
    Atomics.notify(this.ctl, REQUEST);
    const a = this.wait(this.limits.callMs, deadline, 'call', before) as Answer;
    if (!a.ok) throw new PluginFailure(a.error);
    return a;
  }

  /**
   * Waits for the worker's answer; a call without progress for `callMs`, or past `deadline`, stops
   * it. Until the worker first shows progress (it has received and deserialized the request: a
   * first batch may carry a whole cluster) the load limit applies instead.
   */
  private wait(
    callMs: number,
    deadline: number,
    what: 'loading' | 'call',
    before = Atomics.load(this.ctl, PROGRESS),
  ): Answer | LoadAnswer {
    const ctl = this.ctl;
    const slice = Math.max(1, Math.min(100, callMs >> 2));
    let progress = before;
    let since = performance.now();
    let limit = what === 'call' ? Math.max(callMs, this.limits.loadMs) : callMs;
    spinWhile(ctl, DONE, 0);
    while (Atomics.load(ctl, DONE) === 0) {
      Atomics.wait(ctl, DONE, 0, slice);
      if (Atomics.load(ctl, DONE) !== 0) break;
      const now = performance.now();
      const p = Atomics.load(ctl, PROGRESS);
      if (p !== progress) {
        progress = p;
        since = now;
        limit = callMs;
      } else if (now - since >= limit) {
        this.stop();
        throw new PluginFailure(
          what === 'loading'
            ? `did not finish loading within ${callMs} ms`
            : limit !== callMs
              ? `did not take a request within ${limit} ms and was stopped`
              : `a call ran longer than ${callMs} ms and was stopped (--plugin-timeout; an endless loop, or a heap at its ${this.limits.memoryMiB} MiB limit)`,
        );
      }
      if (now >= deadline) {
        this.stop();
        throw new PluginFailure(
          `ran longer than ${this.limits.cycleMs} ms in one scheduling cycle and was stopped (--plugin-cycle-timeout)`,
        );
      }
    }
    Atomics.store(ctl, DONE, 0);
    const m = receiveMessageOnPort(this.port!);
    if (!m) {
      this.stop();
      throw new PluginFailure('the plugin worker answered nothing');
    }
    return m.message as Answer | LoadAnswer;
  }

  /** the name and kinds the module declared (after start) */
  get declared(): Loaded | undefined {
    return this.loaded;
  }

  /** Stops the worker now; the next call starts a new one. */
  stop(): void {
    const w = this.worker;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    void w?.terminate();
  }

  /**
   * Lets the exit events of a stopped worker arrive, then says why it ended by itself (out of
   * memory), if it did: a refinement of a "ran longer" failure seen while kubesim was blocked.
   */
  async endedBecause(): Promise<string | undefined> {
    for (let i = 0; i < 20 && this.ended === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    return this.ended;
  }
}

/**
 * The thread a contained user plugin runs in (host.ts starts it with V8 resource limits). It loads
 * the plugin, then answers one request at a time (protocol.ts): score or filter a batch of nodes
 * with a TS/JS plugin on frozen copies of the pods and nodes, or score a batch with a WASM plugin
 * on its own memory holding a copy of the node table. Every result is checked here, so that an
 * error can name the node: a score must be a finite number, a filter verdict undefined or a reason.
 *
 * `process.exit`, `process.abort`, `process.kill` and `process.reallyExit` throw instead: a plugin
 * that calls them fails its call rather than ending the thread (or kubesim).
 */
import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { importModule } from '../../../util/import-module.js';
import { TABLE_HEADER } from '../../engine/layout.js';
import { checkWasmPlugin, pages, type WasmModuleInfo, type WasmScoreExports } from './wasm-module.js';
import {
  DONE,
  PROGRESS,
  REQUEST,
  spinWhile,
  type Answer,
  type JsRequest,
  type LoadAnswer,
  type Request,
  type WasmRequest,
  type WorkerInit,
} from './protocol.js';

const init = workerData as WorkerInit;
const ctl = new Int32Array(init.ctl);

function answer(a: Answer | LoadAnswer): void {
  init.port.postMessage(a);
  Atomics.store(ctl, DONE, 1);
  Atomics.notify(ctl, DONE);
}

class ExitCalled extends Error {}

function guardProcess(): void {
  const refuse = (what: string) =>
    function (this: unknown, ...args: unknown[]): never {
      throw new ExitCalled(
        `called ${what}(${args.map((a) => JSON.stringify(a) ?? '').join(', ')}); a plugin cannot end kubesim`,
      );
    };
  const p = process as unknown as Record<string, unknown>;
  for (const f of ['exit', 'abort', 'reallyExit', 'kill']) p[f] = refuse(`process.${f}`);
  // an error thrown later by a timer or promise of the plugin must not end the thread either
  process.on('uncaughtException', () => {});
  process.on('unhandledRejection', () => {});
}

/** What an exception says, with a hint when it came from writing a read-only argument. */
function describe(e: unknown): string {
  const msg = e instanceof Error ? e.message : `threw ${show(e)}`;
  if (
    e instanceof TypeError &&
    /read.only|not extensible|Cannot (assign|add|delete|define|redefine)/i.test(msg)
  )
    return `${msg} (the pod, node and pods a plugin is given are read-only)`;
  return msg;
}

function show(v: unknown): string {
  if (typeof v === 'string') return `a string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function')
    return 'a Promise (plugins run synchronously: return the value itself)';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return `${typeof v} ${String(v)}`;
}

// ---- TS/JS plugins

interface Def {
  name: string;
  score?: (pod: unknown, node: unknown, pods: readonly unknown[]) => unknown;
  filter?: (pod: unknown, node: unknown, pods: readonly unknown[]) => unknown;
  normalize?: unknown;
}

/**
 * The default export, unless it is not a plugin and a `plugin` export is; CommonJS
 * `module.exports = { plugin }` arrives as the default export's `plugin`.
 */
async function loadJs(path: string): Promise<Def> {
  const mod = await importModule(path);
  const named = (v: unknown): v is Def => typeof (v as Def | undefined)?.name === 'string';
  const cjs = (mod.default as { plugin?: unknown } | undefined)?.plugin;
  const def = ([mod.default, mod.plugin, cjs].find(named) ?? mod.plugin ?? mod.default) as Def | undefined;
  if (!def || typeof def !== 'object')
    throw new Error('the module has no default (or "plugin") export with {name, score, filter}');
  if (typeof def.name !== 'string' || !def.name)
    throw new Error("the plugin's name must be a non-empty string");
  if (typeof def.score !== 'function' && typeof def.filter !== 'function')
    throw new Error(`plugin "${def.name}": needs a score and/or filter function`);
  return def;
}

/** objects by the number the host gave them, frozen all the way down */
const objects: unknown[] = [];
/** per node number: the frozen array of its pods as last sent */
const lastPods: (readonly unknown[] | undefined)[] = [];

function deepFreeze(root: unknown): unknown {
  const stack = [root];
  while (stack.length) {
    const o = stack.pop();
    if (o === null || typeof o !== 'object' || Object.isFrozen(o)) continue;
    Object.freeze(o);
    for (const v of Object.values(o)) stack.push(v);
  }
  return root;
}

/** the frozen pod lists of the batch's nodes (podCount −1: the node's list as last sent) */
function podLists(req: JsRequest): (readonly unknown[])[] {
  const out: (readonly unknown[])[] = new Array(req.nodes.length);
  let at = 0;
  for (let i = 0; i < req.nodes.length; i++) {
    const c = req.podCount[i];
    let list = lastPods[req.nodes[i]];
    if (c >= 0 || !list) {
      list = Object.freeze(Array.from(req.podIds.subarray(at, at + Math.max(c, 0)), (id) => objects[id]));
      lastPods[req.nodes[i]] = list;
      at += Math.max(c, 0);
    }
    out[i] = list;
  }
  return out;
}

function nodeName(node: unknown): string {
  return JSON.stringify((node as { metadata?: { name?: unknown } })?.metadata?.name ?? '');
}

function runJs(def: Def, req: JsRequest): Answer {
  for (let k = 0; k < req.defs.length; k++) {
    const [id, o] = req.defs[k];
    objects[id] = deepFreeze(o);
    // freezing a whole cluster is not one of the plugin's calls: show progress
    if ((k & 1023) === 1023) Atomics.add(ctl, PROGRESS, 1);
  }
  Atomics.add(ctl, PROGRESS, 1);
  const pod = objects[req.pod];
  const n = req.nodes.length;
  const pods = podLists(req);
  if (req.op === 'score') {
    const scores = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const node = objects[req.nodes[i]];
      let v: unknown;
      try {
        v = def.score!(pod, node, pods[i]);
      } catch (e) {
        return { ok: false, error: `score on node ${nodeName(node)}: ${describe(e)}` };
      }
      Atomics.add(ctl, PROGRESS, 1);
      if (typeof v !== 'number' || !Number.isFinite(v))
        return {
          ok: false,
          error: `score on node ${nodeName(node)} returned ${typeof v === 'number' ? v : show(v)}, not a finite number`,
        };
      scores[i] = v;
    }
    return { ok: true, scores };
  }
  const verdicts = new Int32Array(n);
  const texts: string[] = [];
  const textIds = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const node = objects[req.nodes[i]];
    let v: unknown;
    try {
      v = def.filter!(pod, node, pods[i]);
    } catch (e) {
      return { ok: false, error: `filter on node ${nodeName(node)}: ${describe(e)}` };
    }
    Atomics.add(ctl, PROGRESS, 1);
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && v !== '') {
      let id = textIds.get(v);
      if (id === undefined) textIds.set(v, (id = texts.push(v)));
      verdicts[i] = id;
    } else
      return {
        ok: false,
        error: `filter on node ${nodeName(node)} returned ${v === '' ? 'an empty string' : show(v)}; expected undefined (fits) or a reason string`,
      };
  }
  return { ok: true, verdicts, texts };
}

// ---- WASM plugins

class WasmRunner {
  private memory?: WebAssembly.Memory;
  private ex?: WasmScoreExports;
  /** pages kubesim sized the memory to; growth beyond them is the plugin's */
  private ownPages = 0;
  private maxPages = 0;
  private shared?: SharedArrayBuffer;

  constructor(
    private readonly mod: WebAssembly.Module,
    private readonly info: WasmModuleInfo,
  ) {}

  run(req: WasmRequest): Answer {
    if (req.shared) this.shared = req.shared;
    const shared = new Uint8Array(this.shared!);
    const slotsAt = align(TABLE_HEADER + req.tableBytes);
    const need = slotsAt + 8 * req.count;
    const empty = this.ensure(need);
    const mem = new Uint8Array(this.memory!.buffer);
    // the memory holds the previous request's copy unless it is new (or the buffer is)
    const r = empty || req.shared ? req.all : req.regions;
    for (let k = 0; k < r.length; k += 2)
      mem.set(shared.subarray(r[k] - TABLE_HEADER, r[k] - TABLE_HEADER + r[k + 1]), r[k]);
    const sharedSlots = align(req.tableBytes);
    mem.set(shared.subarray(sharedSlots, sharedSlots + 4 * req.count), slotsAt);
    this.ex!.score(req.header, slotsAt, req.count, slotsAt + 4 * req.count, req.podMilliCpu, req.podMemory);
    Atomics.add(ctl, PROGRESS, 1);
    const after = this.memory!.buffer;
    if (after.byteLength / 65536 >= this.maxPages && this.maxPages > this.ownPages)
      return {
        ok: false,
        error: `grew its memory to the limit: ${init.memoryMiB} MiB beyond its copy of the node table (--plugin-memory)`,
      };
    const out = new Int32Array(after, slotsAt + 4 * req.count, req.count);
    const scores = new Float64Array(req.count);
    for (let i = 0; i < req.count; i++) scores[i] = out[i];
    return { ok: true, scores };
  }

  /**
   * a memory of at least `bytes`, instantiating (again) when the table outgrew the maximum;
   * true when the memory is new (it holds no copy of the table yet)
   */
  private ensure(bytes: number): boolean {
    const want = pages(bytes);
    if (this.memory && want <= this.memory.buffer.byteLength / 65536) return false;
    if (this.memory && want <= this.maxPages) {
      this.memory.grow(want - this.memory.buffer.byteLength / 65536);
      this.ownPages = want;
      return false;
    }
    const initial = Math.max(want, this.info.memoryMin);
    let maximum = initial + init.memoryMiB * 16;
    if (this.info.memoryMax !== undefined) {
      if (this.info.memoryMax < initial)
        throw new Error(
          `declares at most ${this.info.memoryMax} memory pages; the node table copy needs ${initial}`,
        );
      maximum = Math.min(maximum, this.info.memoryMax);
    }
    this.memory = new WebAssembly.Memory({ initial, maximum });
    this.ownPages = initial;
    this.maxPages = maximum;
    const memory = this.memory;
    const inst = new WebAssembly.Instance(this.mod, {
      env: {
        memory,
        abort: (msg: number, _file: number, line: number, col: number) => {
          throw new Error(`aborted at ${line}:${col}${asString(memory, msg)}`);
        },
      },
    });
    const ex = inst.exports as unknown as WasmScoreExports;
    if (typeof ex.heapBase === 'function' && ex.heapBase() > 65536)
      throw new Error(`static data ends at ${ex.heapBase()}, beyond the reserved 65536 bytes`);
    this.ex = ex;
    return true;
  }
}

const align = (n: number) => (n + 63) & ~63;

/** an AssemblyScript string (UTF-16, byte length at ptr − 4), as ": text", or "" */
function asString(memory: WebAssembly.Memory, ptr: number): string {
  const b = memory.buffer;
  if (ptr < 4 || ptr >= b.byteLength) return '';
  const len = new DataView(b).getUint32(ptr - 4, true);
  if (len === 0 || len > 4096 || ptr + len > b.byteLength) return '';
  return `: ${Buffer.from(b, ptr, len).toString('utf16le')}`;
}

// ---- start

async function load(): Promise<(req: Request) => Answer> {
  const src = init.source;
  if (src.kind === 'js') {
    const def = await loadJs(src.path);
    answer({
      ok: true,
      name: def.name,
      isScore: typeof def.score === 'function',
      isFilter: typeof def.filter === 'function',
      normalize: def.normalize,
    });
    return (req) => runJs(def, req as JsRequest);
  }
  const mod = new WebAssembly.Module(src.bytes as Uint8Array<ArrayBuffer>);
  const runner = new WasmRunner(mod, checkWasmPlugin(src.bytes, mod));
  answer({ ok: true, name: init.label, isScore: true, isFilter: false });
  return (req) => runner.run(req as WasmRequest);
}

/** How long the worker waits for the next request in Atomics.wait before it lets its event loop run. */
const IDLE_WAIT_MS = 20;

/**
 * Answers requests as they come. Between calls the worker blocks in Atomics.wait on `ctl[REQUEST]`
 * and takes the request with receiveMessageOnPort: a futex wake, where a 'message' event would wait
 * for the worker's event loop to wake up and dispatch (most of a cheap call's round trip: a WASM
 * plugin's call is one per pod). After IDLE_WAIT_MS without a request it returns to the event loop
 * (timers and promises a plugin left behind run there), and a 'message' event brings it back.
 */
function serve(handle: (req: Request) => Answer): void {
  const one = (req: Request) => {
    // received (and deserialized): the call limit runs from here
    Atomics.add(ctl, PROGRESS, 1);
    let a: Answer;
    try {
      a = handle(req);
    } catch (e) {
      a = { ok: false, error: describe(e) };
    }
    answer(a);
  };
  const pump = () => {
    for (;;) {
      const seen = Atomics.load(ctl, REQUEST);
      const m = receiveMessageOnPort(init.port);
      if (m) {
        one(m.message as Request);
        continue;
      }
      spinWhile(ctl, REQUEST, seen);
      if (Atomics.wait(ctl, REQUEST, seen, IDLE_WAIT_MS) === 'timed-out') break;
    }
    init.port.once('message', (req: Request) => {
      one(req);
      pump();
    });
  };
  pump();
}

guardProcess();
load().then(serve, (e: unknown) => answer({ ok: false, error: describe(e) }));

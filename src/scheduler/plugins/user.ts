/**
 * User plugins: a TypeScript object with `score` (and optionally `filter`), or a WebAssembly
 * module that scores a batch of nodes straight from the NodeTable's columns. Both become ordinary
 * framework plugins, enabled in a profile by name with a weight (or via the CLI's --plugin).
 *
 * Two ways to run them:
 * - loaded from a file ({@link loadUserPlugin}: `--plugin`, `plugin:` strategies): contained, in a
 *   worker thread with time and memory limits, on read-only copies of the pods and nodes and, for
 *   WASM, on a copy of the node table in a memory of its own (contained.ts, sandbox/);
 * - handed over as an object or module ({@link tsPlugin}, {@link wasmScorePlugin}): trusted, run
 *   in kubesim's thread on kubesim's own objects and table memory — the fast path for code the
 *   embedding program vouches for. Their scores are still checked (a finite number).
 *
 * WASM ABI (one call per pod):
 *   imports  env.memory  — a memory holding the NodeTable (columns as src/scheduler/engine/layout.ts);
 *                          contained: a copy of the table's bytes at the same addresses, in a memory
 *                          whose maximum kubesim sets; trusted: the table's own memory
 *            env.abort(msg, file, line, col)
 *   exports  score(table: i32, slots: i32, count: i32, out: i32, podMilliCpu: f64, podMemoryBytes: f64): void
 *              table  byte address of the table header (i32 fields H_*)
 *              slots  byte address of i32[count] node slots to score
 *              out    byte address of i32[count] where the raw scores go
 *            heapBase(): i32   (optional) end of the module's static data; must stay below 65536 and
 *              must not overlap the kernel's (compile with --memoryBase 49152, see examples/plugins/wasm-binpack)
 *   A module imports no other function and defines no memory of its own. Memory above 65536 holds
 *   the table: a contained plugin's writes there change only its copy, whose header is refreshed at
 *   every call and its columns where the table changed (contained.ts).
 */
import type { Node, Pod } from '../../api/types.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, Status, type MaybeStatus } from '../framework/status.js';
import type { FilterPlugin, Handle, Plugin, PluginFactory, ScorePlugin } from '../framework/types.js';
import type { NodeLocalHandle, SchedulingEngine } from './node-local.js';
import { podRequests } from '../engine/resources.js';
import { normalization, normalizer, type Normalization } from './normalize.js';
import { ContainedRuntime, containedPluginFactory, type PluginFailureRecord } from './contained.js';
import { PluginSandbox } from './sandbox/host.js';
import type { WasmScoreExports } from './sandbox/wasm-module.js';
import { pluginLimits, type PluginErrorPolicy, type PluginLimits } from './sandbox/limits.js';

export type { Normalization } from './normalize.js';

/** A score (and optionally filter) plugin written as a plain object. */
export interface ScorePluginDef {
  name: string;
  /** raw score of a feasible node; must end up in 0..100 (after `normalize`) */
  score?(pod: Pod, node: Node, pods: readonly Pod[]): number;
  /** 'default': scale by the maximum to 0..100; 'reverse': the same, reversed; default 'none' */
  normalize?: Normalization;
  /** a reason string when the node does not fit, undefined when it does */
  filter?(pod: Pod, node: Node, pods: readonly Pod[]): string | undefined;
}

/** a raw score as the framework may use it, or an Error naming the node */
function checkedScore(v: unknown, node: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const what =
    typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
      ? 'a Promise (plugins run synchronously: return the value itself)'
      : typeof v === 'number'
        ? String(v)
        : `${typeof v} ${JSON.stringify(v) ?? String(v)}`;
  throw new Error(`score on node "${node}" returned ${what}, not a finite number`);
}

class TsPlugin implements Plugin {
  readonly name: string;
  private readonly statuses = new Map<string, Status>();
  constructor(private readonly def: ScorePluginDef) {
    this.name = def.name;
    if (def.score) {
      (this as unknown as ScorePlugin).score = (_s, pod, ni) =>
        checkedScore(
          def.score!(
            pod,
            ni.node,
            ni.pods.map((p) => p.pod),
          ),
          ni.name,
        );
      (this as unknown as ScorePlugin).normalizeScore = normalizer(def.normalize);
    }
    if (def.filter) {
      (this as unknown as FilterPlugin).filter = (_s, pod, ni) => {
        const r = def.filter!(
          pod,
          ni.node,
          ni.pods.map((p) => p.pod),
        );
        if (r === undefined || r === null) return null;
        if (typeof r !== 'string' || r === '')
          throw new Error(
            `filter on node "${ni.name}" returned ${JSON.stringify(r) ?? typeof r}; expected undefined (fits) or a reason string`,
          );
        let st = this.statuses.get(r);
        if (!st) {
          st = new Status(Code.Unschedulable, [r], this.name);
          this.statuses.set(r, st);
        }
        return st;
      };
    }
  }
}

/** A plugin factory for a TS plugin object, run in kubesim's thread (trusted: see the module comment). */
export function tsPlugin(def: ScorePluginDef): PluginFactory {
  if (!def || typeof def.name !== 'string' || !def.name)
    throw new TypeError('user plugin: name must be a non-empty string');
  if (typeof def.score !== 'function' && typeof def.filter !== 'function')
    throw new TypeError(`user plugin "${def.name}": needs a score and/or filter function`);
  return () => new TsPlugin(def);
}

/** A score plugin backed by a WASM module reading the NodeTable columns in place (trusted; ABI above). */
export class WasmScorePlugin implements ScorePlugin {
  private ex?: WasmScoreExports;
  private scratch = 0;
  private scratchCap = 0;

  constructor(
    readonly name: string,
    private readonly module: WebAssembly.Module,
    private readonly engine: SchedulingEngine,
    private readonly normalize: Normalization = 'none',
  ) {}

  private exportsOf(): WasmScoreExports {
    if (!this.ex) {
      const inst = new WebAssembly.Instance(this.module, {
        env: {
          memory: this.engine.table.mem.memory,
          abort: (_m: number, _f: number, line: number, col: number) => {
            throw new Error(`WASM plugin ${this.name} aborted at ${line}:${col}`);
          },
        },
      });
      const ex = inst.exports as unknown as WasmScoreExports;
      if (typeof ex.score !== 'function')
        throw new Error(`WASM plugin ${this.name}: the module exports no score function`);
      if (ex.heapBase && ex.heapBase() > 65536)
        throw new Error(
          `WASM plugin ${this.name}: static data ends at ${ex.heapBase()}, beyond the reserved 65536 bytes`,
        );
      this.ex = ex;
    }
    return this.ex;
  }

  score(state: CycleState, pod: Pod, ni: NodeInfo): number {
    const out = [0];
    this.scoreAll(state, pod, [ni], out);
    return out[0];
  }

  scoreAll(_state: CycleState, pod: Pod, nodes: readonly NodeInfo[], out: number[]): void {
    const ex = this.exportsOf();
    const mem = this.engine.table.mem;
    const n = nodes.length;
    if (n * 8 > this.scratchCap) {
      this.scratchCap = Math.max(n * 8, 4096);
      this.scratch = mem.alloc(this.scratchCap);
    }
    const slots = this.scratch,
      res = this.scratch + n * 4;
    const i32 = mem.i32;
    for (let i = 0; i < n; i++) i32[(slots >> 2) + i] = nodes[i].slot;
    const req = podRequests(pod);
    ex.score(this.engine.table.header, slots, n, res, req.get('cpu') ?? 0, req.get('memory') ?? 0);
    mem.revalidate(); // the plugin may have grown the memory
    const after = mem.i32;
    for (let i = 0; i < n; i++) out[i] = after[(res >> 2) + i];
  }

  normalizeScore(s: CycleState, p: Pod, n: readonly NodeInfo[], scores: number[]): MaybeStatus {
    return normalizer(this.normalize)(s, p, n, scores);
  }
}

/** A plugin factory for a compiled WASM score module, run on the table's own memory (trusted). */
export function wasmScorePlugin(
  name: string,
  wasm: BufferSource | WebAssembly.Module,
  normalize: Normalization = 'none',
): PluginFactory {
  const module = wasm instanceof WebAssembly.Module ? wasm : new WebAssembly.Module(wasm);
  return (_args: Record<string, unknown> | undefined, h: Handle) => {
    const engine = (h as NodeLocalHandle).engine;
    if (!engine) throw new Error(`WASM plugin ${name}: needs the scheduling engine`);
    return new WasmScorePlugin(name, module, engine, normalize);
  };
}

export interface LoadedUserPlugin {
  name: string;
  factory: PluginFactory;
  weight: number;
  isScore: boolean;
  isFilter: boolean;
  /** the calls that failed so far (each failed its pod's cycle) */
  failures: readonly PluginFailureRecord[];
  /**
   * Stops the plugin's worker; waits briefly for a worker that ended by itself to say why (out of
   * memory), and then words the failures with that reason.
   */
  close(): Promise<void>;
}

export interface UserPluginOptions {
  /** time and memory bounds (sandbox/limits.ts); defaults DEFAULT_PLUGIN_LIMITS */
  limits?: Partial<PluginLimits>;
  /** 'fail' (default): after its first failure the plugin fails every call at once; 'continue': it runs again for each pod */
  errors?: PluginErrorPolicy;
}

/**
 * Loads `path[:weight]` for the CLI, contained (module comment): a .wasm score module (named after
 * the file) or a module (.js/.mjs/.cjs, or .ts/.mts/.cts compiled at load: util/import-module.ts)
 * whose default export (or `plugin` export) is a {@link ScorePluginDef}. Weight defaults to 1. The
 * module is imported in the plugin's worker: it gets its own instance of kubesim's modules.
 */
export async function loadUserPlugin(spec: string, opts: UserPluginOptions = {}): Promise<LoadedUserPlugin> {
  const m = /^(.*?)(?::(\d+))?$/.exec(spec)!;
  const path = resolve(m[1]);
  const weight = m[2] === undefined ? 1 : Number(m[2]);
  if (weight < 1 || weight > 100) throw new Error(`--plugin ${spec}: weight must be in 1..100`);
  const limits = pluginLimits(opts.limits);
  let sandbox: PluginSandbox;
  if (path.endsWith('.wasm')) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new Error(`--plugin ${spec}: cannot read ${path}: ${(e as Error).message}`);
    }
    try {
      new WebAssembly.Module(new Uint8Array(bytes));
    } catch (e) {
      throw new Error(`--plugin ${spec}: not a valid WebAssembly module: ${(e as Error).message}`);
    }
    const name = path.replace(/^.*[\\/]/, '').replace(/\.wasm$/, '');
    sandbox = new PluginSandbox(name, { kind: 'wasm', bytes: new Uint8Array(bytes) }, limits);
  } else {
    sandbox = new PluginSandbox(path, { kind: 'js', path }, limits);
  }
  let declared: ReturnType<PluginSandbox['start']>;
  let normalize: Normalization | undefined;
  try {
    declared = sandbox.start();
    normalize = normalization(declared.normalize);
  } catch (e) {
    sandbox.stop();
    throw new Error(`--plugin ${spec}: ${(e as Error).message}`);
  }
  const kind = path.endsWith('.wasm') ? 'wasm' : 'js';
  const rt = new ContainedRuntime(declared.name, sandbox, opts.errors ?? 'fail');
  return {
    name: declared.name,
    factory: containedPluginFactory(rt, kind, declared.isScore, declared.isFilter, normalize),
    weight,
    isScore: declared.isScore,
    isFilter: declared.isFilter,
    failures: rt.failures,
    async close() {
      sandbox.stop();
      if (!rt.failures.length) return;
      const why = await sandbox.endedBecause();
      if (why) for (const f of rt.failures) if (/ran longer than/.test(f.message)) f.message = why;
    },
  };
}

/**
 * User plugins: a TypeScript object with `score` (and optionally `filter`), or a WebAssembly
 * module that scores a batch of nodes straight from the NodeTable's columns. Both become ordinary
 * framework plugins, enabled in a profile by name with a weight (or via the CLI's --plugin).
 *
 * WASM ABI (one call per pod, no copying):
 *   imports  env.memory  — the NodeTable's WebAssembly.Memory (columns as src/scheduler/engine/layout.ts)
 *            env.abort(msg, file, line, col)
 *   exports  score(table: i32, slots: i32, count: i32, out: i32, podMilliCpu: f64, podMemoryBytes: f64): void
 *              table  byte address of the table header (i32 fields H_*)
 *              slots  byte address of i32[count] node slots to score
 *              out    byte address of i32[count] where the raw scores go
 *            heapBase(): i32   (optional) end of the module's static data; must stay below 65536 and
 *              must not overlap the kernel's (compile with --memoryBase 49152, see examples/plugins/wasm-binpack)
 */
import type { Node, Pod } from '../../api/types.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { importModule } from '../../util/import-module.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, Status, type MaybeStatus } from '../framework/status.js';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type Handle,
  type Plugin,
  type PluginFactory,
  type ScorePlugin,
} from '../framework/types.js';
import { defaultNormalizeScore, type NodeLocalHandle, type SchedulingEngine } from './node-local.js';
import { podRequests } from '../engine/resources.js';

export type Normalization = 'none' | 'default' | 'reverse';

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

function normalizer(kind: Normalization | undefined) {
  return (_s: CycleState, _p: Pod, _n: readonly NodeInfo[], scores: number[]): MaybeStatus => {
    if (kind === 'default' || kind === 'reverse')
      defaultNormalizeScore(MAX_NODE_SCORE, kind === 'reverse', scores);
    return null;
  };
}

class TsPlugin implements Plugin {
  readonly name: string;
  private readonly statuses = new Map<string, Status>();
  constructor(private readonly def: ScorePluginDef) {
    this.name = def.name;
    if (def.score) {
      (this as unknown as ScorePlugin).score = (_s, pod, ni) =>
        def.score!(
          pod,
          ni.node,
          ni.pods.map((p) => p.pod),
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
        if (r === undefined) return null;
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

/** A plugin factory for a TS plugin object. */
export function tsPlugin(def: ScorePluginDef): PluginFactory {
  if (!def || typeof def.name !== 'string' || !def.name)
    throw new TypeError('user plugin: name must be a non-empty string');
  if (typeof def.score !== 'function' && typeof def.filter !== 'function')
    throw new TypeError(`user plugin "${def.name}": needs a score and/or filter function`);
  return () => new TsPlugin(def);
}

interface WasmScoreExports {
  score(
    table: number,
    slots: number,
    count: number,
    out: number,
    podMilliCpu: number,
    podMemory: number,
  ): void;
  heapBase?(): number;
}

/** A score plugin backed by a WASM module reading the NodeTable columns (ABI above). */
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

/** A plugin factory for a compiled WASM score module. */
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
}

/**
 * Loads `path[:weight]` for the CLI: a .wasm score module (named after the file) or a module
 * (.js/.mjs/.cjs, or .ts/.mts/.cts compiled at load: util/import-module.ts) whose default export
 * (or `plugin` export) is a {@link ScorePluginDef}. Weight defaults to 1.
 */
export async function loadUserPlugin(spec: string): Promise<LoadedUserPlugin> {
  const m = /^(.*?)(?::(\d+))?$/.exec(spec)!;
  const path = resolve(m[1]);
  const weight = m[2] === undefined ? 1 : Number(m[2]);
  if (weight < 1 || weight > 100) throw new Error(`--plugin ${spec}: weight must be in 1..100`);
  if (path.endsWith('.wasm')) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new Error(`--plugin ${spec}: cannot read ${path}: ${(e as Error).message}`);
    }
    const name = path.replace(/^.*[\\/]/, '').replace(/\.wasm$/, '');
    let mod: WebAssembly.Module;
    try {
      mod = new WebAssembly.Module(new Uint8Array(bytes));
    } catch (e) {
      throw new Error(`--plugin ${spec}: not a valid WebAssembly module: ${(e as Error).message}`);
    }
    return { name, factory: wasmScorePlugin(name, mod), weight, isScore: true, isFilter: false };
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(path);
  } catch (e) {
    throw new Error(`--plugin ${spec}: ${(e as Error).message}`);
  }
  // the default export, unless it is not a plugin and a `plugin` export is (CommonJS
  // `module.exports = { plugin }` arrives as the default export)
  const named = (v: unknown): v is ScorePluginDef =>
    typeof (v as ScorePluginDef | undefined)?.name === 'string';
  const def = (named(mod.default) ? mod.default : (mod.plugin ?? mod.default)) as ScorePluginDef | undefined;
  if (!def || typeof def !== 'object')
    throw new Error(
      `--plugin ${spec}: the module has no default (or "plugin") export with {name, score, filter}`,
    );
  return {
    name: def.name,
    factory: tsPlugin(def),
    weight,
    isScore: typeof def.score === 'function',
    isFilter: typeof def.filter === 'function',
  };
}

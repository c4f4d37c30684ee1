/**
 * CycleState: per-scheduling-cycle scratch space shared by a profile's plugins (upstream
 * framework.CycleState). PreFilter/PreScore compute once and write; Filter/Score read per node.
 * Preemption evaluates "what if these pods were gone" on a clone, so state objects that change
 * under AddPod/RemovePod implement {@link StateData.clone}.
 */
export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** set by the framework: plugins that returned Skip at PreFilter / PreScore */
  readonly skipFilterPlugins = new Set<string>();
  readonly skipScorePlugins = new Set<string>();
  /** set by the framework: the nodes PreFilter narrowed the cycle to (PreFilterResult), if any */
  preFilterNodeNames: ReadonlySet<string> | undefined = undefined;
  /** keep every plugin's raw and normalized scores in the result (explain); off, the framework may take the engine's totals */
  wantScoreTable = false;
  /**
   * set by the framework: the filter plugins this cycle runs (not skipped; and not covered by the
   * window filter), for the skip count it was worked out at (framework.ts FilterPlan; opaque here
   * so that this module imports no plugin types and types.ts may import it)
   */
  activeFilters: unknown = undefined;

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  /** the value under key; throws (a broken invariant, e.g. PreFilter never ran) when absent */
  read<T>(key: string): T {
    if (!this.data.has(key)) throw new Error(`reading "${key}" from cycleState: not found`);
    return this.data.get(key) as T;
  }

  tryRead<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  /** a copy whose StateData values are cloned (others are shared: they must be read-only) */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) {
      const sd = v as Partial<StateData> | null;
      c.data.set(k, sd && typeof sd === 'object' && typeof sd.clone === 'function' ? sd.clone() : v);
    }
    for (const p of this.skipFilterPlugins) c.skipFilterPlugins.add(p);
    for (const p of this.skipScorePlugins) c.skipScorePlugins.add(p);
    c.preFilterNodeNames = this.preFilterNodeNames;
    return c;
  }
}

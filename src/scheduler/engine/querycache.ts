/**
 * Compiled pod queries kept per pod template: the replicas of one workload (and a pod retried
 * cycle after cycle) share one compiled query instead of compiling it every cycle — upstream
 * recomputes its PreFilter state per cycle; the result is the same because a query depends only on
 * the pod's spec and on the table's dictionaries, names and sizes ({@link NodeTable.shapeVersion}),
 * never on the pods placed — except for host ports, whose conflict bitset follows every placement,
 * so pods with host ports are compiled every time.
 *
 * A query is found by the pod object, then by a key made of every spec field compilePod reads
 * ({@link templateKey}); an entry holds its own region of table memory (a {@link QueryArena}) and
 * is compiled again when the table's shape changed. At most `limit` entries are kept (least
 * recently used first out); an evicted entry's region is reused.
 */
import type { Pod } from '../../api/types.js';
import * as L from './layout.js';
import { compilePod, PodQuery, QueryArena } from './podquery.js';
import type { ResolvedScoring } from './scoring.js';
import type { NodeTable, PodAccounting } from './table.js';

interface Entry {
  key: string;
  arena: QueryArena;
  addr: number;
  /** the arena's seq after compiling (a later compile into the arena supersedes it) */
  seq: number;
  shape: number;
  scoring: ResolvedScoring;
  accounting: PodAccounting;
  /** the query's flags as compiled (before any cross-pod fields) */
  flags: number;
  dead: boolean;
  /** the cache's use count when last found (least recently used: the lowest, looked for on eviction only) */
  used: number;
}

/** header fields a cycle may write into a compiled query (the cross-pod block): cleared on reuse */
const CROSS_POD_FIRST = L.Q_X_NUM_CHECKS;

/**
 * Every spec field compilePod reads (requests, images, host ports, node name, selectors, node
 * affinity, tolerations, overhead, pod-level resources), as one string: two pods with equal keys
 * compile to the same bytes. (Error texts name the pod; queries with errors are not shared.)
 */
export function templateKey(pod: Pod): string {
  const s = pod.spec;
  if (!s) return '';
  const c = s.containers ?? [];
  const parts: unknown[] = [s.nodeName, s.nodeSelector, s.affinity?.nodeAffinity, s.tolerations];
  for (let i = 0; i < c.length; i++) parts.push(c[i].image, c[i].resources?.requests, c[i].ports);
  if (s.initContainers || s.overhead || s.resources)
    parts.push(
      s.overhead,
      s.resources,
      s.initContainers?.map((x) => [x.image, x.resources?.requests, x.ports, x.restartPolicy]),
    );
  return JSON.stringify(parts);
}

export class QueryCache {
  private readonly byPod = new WeakMap<Pod, Entry>();
  private readonly byKey = new Map<string, Entry>();
  private uses = 0;
  private readonly spare: QueryArena[] = [];
  hits = 0;
  misses = 0;

  constructor(
    readonly table: NodeTable,
    private readonly limit = 512,
  ) {}

  /**
   * The pod's query, compiled now or kept from a pod of the same template. A query that cannot be
   * kept (host ports, affinity errors) is valid until the next compile, as one in a shared arena.
   */
  compile(pod: Pod, scoring: ResolvedScoring): PodQuery {
    const table = this.table;
    let e = this.byPod.get(pod);
    let key: string | undefined;
    if (e === undefined || e.dead) {
      key = templateKey(pod);
      e = this.byKey.get(key);
      if (e !== undefined) this.byPod.set(pod, e);
    }
    if (
      e !== undefined &&
      !e.dead &&
      e.shape === table.shapeVersion &&
      e.scoring === scoring &&
      e.arena.seq === e.seq
    ) {
      this.hits++;
      // (a stamp, not a Map delete + set per hit)
      e.used = ++this.uses;
      const i32 = table.mem.i32;
      const h = e.addr >> 2;
      i32[h + L.Q_FLAGS] = e.flags;
      i32.fill(0, h + CROSS_POD_FIRST, h + L.Q_HEADER_INTS);
      return new PodQuery(table, pod, e.arena, e.addr, e.seq, table.generation, [], e.accounting);
    }
    this.misses++;
    key ??= templateKey(pod);
    const reuse = e !== undefined && !e.dead;
    const arena = reuse ? e!.arena : (this.spare.pop() ?? new QueryArena(table, 256));
    const q = compilePod(table, pod, scoring, arena);
    if (q.accounting.ports.length > 0 || q.affinityErrors.length > 0) {
      // not shareable: the region goes back to the spares, valid until the next compile into it
      // (what a query compiled into a caller's arena is)
      if (reuse) this.drop(e!);
      else this.spare.push(arena);
      return q;
    }
    const entry: Entry = {
      key,
      arena,
      addr: q.addr,
      seq: q.seq,
      shape: table.shapeVersion,
      scoring,
      accounting: q.accounting,
      flags: table.mem.i32[(q.addr >> 2) + L.Q_FLAGS],
      dead: false,
      used: ++this.uses,
    };
    if (reuse) {
      e!.dead = true;
      this.byKey.delete(e!.key);
    }
    this.byKey.set(key, entry);
    this.byPod.set(pod, entry);
    if (this.byKey.size > this.limit) {
      let lru = entry;
      for (const x of this.byKey.values()) if (x.used < lru.used) lru = x;
      this.drop(lru);
    }
    return q;
  }

  private drop(e: Entry): void {
    e.dead = true;
    this.byKey.delete(e.key);
    this.spare.push(e.arena);
  }
}

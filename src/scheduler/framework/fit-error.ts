/**
 * FitError: why a pod fits on no node, rendered exactly as kube-scheduler's FitError.Error()
 * (pkg/scheduler/framework/types.go):
 *
 *   "0/<N> nodes are available: [<PreFilterMsg>.] [<count> <reason>, … (sorted as strings)].[ <PostFilterMsg>]"
 *
 * Each node contributes every reason of the status that rejected it (the first failing filter);
 * the "<count> <reason>" strings are sorted lexicographically, counts included (so "10 …" sorts
 * before "2 …", as upstream's sort.Strings does).
 */
import type { Pod } from '../../api/types.js';
import type { NodeInfo } from './snapshot.js';
import type { Code, Status } from './status.js';

export const NO_NODE_AVAILABLE_MSG = (n: number) => `0/${n} nodes are available`;
/** upstream ErrNoNodesAvailable */
export const ERR_NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * The rejected nodes' statuses (upstream framework.NodeToStatus), a map from node name to status in
 * the order the nodes were rejected. A cycle that fits nowhere at 5,000 nodes records 5,000 of
 * them and preemption asks about each listed node again, so the cycle records them by node
 * ({@link setNode}: the status in a slot per position in the node list and the position in a
 * typed array, no hashing, no name read); a name index is built only when someone asks by name.
 * Setting a name again replaces its status in place, as a Map.
 */
export class NodeToStatus implements ReadonlyMap<string, Status> {
  // by position: statuses by NodeInfo.index of `list`, and the positions in the order recorded
  private list: readonly NodeInfo[] | undefined = undefined;
  private byIndex: (Status | undefined)[] | undefined = undefined;
  private order: Int32Array | undefined = undefined;
  private count = 0;
  // by name (a name was set, or a node of another list): names or NodeInfos, statuses, in order
  private keysOrNodes: (string | NodeInfo)[] | undefined = undefined;
  private vals: Status[] | undefined = undefined;
  /** name → position in the order recorded; built on the first question by name */
  private pos: Map<string, number> | undefined = undefined;

  /** a status for a node of the snapshot's current node list (`list`, whose indices NodeInfo.index holds) */
  setNode(ni: NodeInfo, status: Status, list: readonly NodeInfo[]): void {
    if (this.vals === undefined) {
      if (this.list === undefined) {
        this.list = list;
        this.byIndex = new Array<Status | undefined>(list.length).fill(undefined);
        this.order = new Int32Array(list.length);
      }
      const at = ni.index;
      if (this.list === list && list[at] === ni && this.byIndex![at] === undefined) {
        this.byIndex![at] = status;
        this.pos?.set(ni.name, this.count);
        this.order![this.count++] = at;
        return;
      }
    }
    this.set(ni.name, status);
  }

  /**
   * {@link setNode} for the node at position `at` of `list`, for a caller that knows the position
   * without reading the NodeInfo (the kernel window's scan order is the list's order): a pod that
   * fits nowhere records a status for every node, and the NodeInfos are scattered in the heap.
   */
  setAt(list: readonly NodeInfo[], at: number, status: Status): void {
    if (this.vals === undefined && this.pos === undefined) {
      if (this.list === undefined) {
        this.list = list;
        this.byIndex = new Array<Status | undefined>(list.length).fill(undefined);
        this.order = new Int32Array(list.length);
      }
      if (this.list === list && this.byIndex![at] === undefined) {
        this.byIndex![at] = status;
        this.order![this.count++] = at;
        return;
      }
    }
    this.setNode(list[at], status, list);
  }

  set(name: string, status: Status): this {
    const at = this.index().get(name);
    this.byName();
    if (at !== undefined) this.vals![at] = status;
    else {
      this.pos!.set(name, this.vals!.length);
      this.keysOrNodes!.push(name);
      this.vals!.push(status);
    }
    return this;
  }

  /** from positions to names: what was recorded by position moves into the by-name arrays */
  private byName(): void {
    if (this.vals !== undefined) return;
    const keys: (string | NodeInfo)[] = [];
    const vals: Status[] = [];
    for (let i = 0; i < this.count; i++) {
      const at = this.order![i];
      keys.push(this.list![at]);
      vals.push(this.byIndex![at]!);
    }
    this.keysOrNodes = keys;
    this.vals = vals;
    this.list = this.byIndex = this.order = undefined;
    this.count = 0;
  }

  private keyAt(i: number): string {
    if (this.vals === undefined) return this.list![this.order![i]].name;
    const k = this.keysOrNodes![i];
    return typeof k === 'string' ? k : k.name;
  }

  private valAt(i: number): Status {
    return this.vals === undefined ? this.byIndex![this.order![i]]! : this.vals[i];
  }

  private index(): Map<string, number> {
    if (this.pos === undefined) {
      const pos = new Map<string, number>();
      for (let i = 0; i < this.size; i++) pos.set(this.keyAt(i), i);
      this.pos = pos;
    }
    return this.pos;
  }

  /** the status of a listed node, without a lookup by name when it was recorded with setNode */
  ofNode(ni: NodeInfo): Status | undefined {
    if (this.vals === undefined && this.list !== undefined && this.list[ni.index] === ni)
      return this.byIndex![ni.index];
    return this.get(ni.name);
  }

  /**
   * How many nodes of `list` have a status with this code, when every status was recorded by
   * position in that same list (one pass over the statuses, no lookup per node); undefined otherwise.
   */
  countCode(list: readonly NodeInfo[], code: Code): number | undefined {
    if (this.vals !== undefined || (this.list !== list && this.count > 0)) return undefined;
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.byIndex![this.order![i]]!.code === code) n++;
    return n;
  }

  get(name: string): Status | undefined {
    const at = this.index().get(name);
    return at === undefined ? undefined : this.valAt(at);
  }

  has(name: string): boolean {
    return this.index().has(name);
  }

  get size(): number {
    return this.vals === undefined ? this.count : this.vals.length;
  }

  /** the statuses in the order the nodes were rejected */
  *values(): MapIterator<Status> {
    for (let i = 0; i < this.size; i++) yield this.valAt(i);
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.size; i++) yield this.keyAt(i);
  }

  *entries(): MapIterator<[string, Status]> {
    for (let i = 0; i < this.size; i++) yield [this.keyAt(i), this.valAt(i)];
  }

  [Symbol.iterator](): MapIterator<[string, Status]> {
    return this.entries();
  }

  forEach(
    cb: (value: Status, key: string, map: ReadonlyMap<string, Status>) => void,
    thisArg?: unknown,
  ): void {
    for (let i = 0; i < this.size; i++) cb.call(thisArg, this.valAt(i), this.keyAt(i), this);
  }

  /** statuses by object with their node counts, in first-rejection order (plugins share constant statuses) */
  distinct(): { statuses: Status[]; counts: number[] } {
    const statuses: Status[] = [];
    const counts: number[] = [];
    let last: Status | undefined;
    let lastAt = -1;
    // a linear search while the statuses are few, a map beyond
    let at: Map<Status, number> | undefined;
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const s = this.valAt(i);
      if (s !== last) {
        last = s;
        if (at === undefined && statuses.length > 16) {
          at = new Map();
          for (let k = 0; k < statuses.length; k++) at.set(statuses[k], k);
        }
        lastAt = at !== undefined ? (at.get(s) ?? -1) : statuses.indexOf(s);
        if (lastAt < 0) {
          at?.set(s, statuses.length);
          lastAt = statuses.length;
          statuses.push(s);
          counts.push(0);
        }
      }
      counts[lastAt]++;
    }
    return { statuses, counts };
  }
}

export interface Diagnosis {
  /** status of each node that was evaluated and rejected */
  nodeToStatus: NodeToStatus;
  /** status for nodes absent from nodeToStatus (e.g. excluded before filtering), if any */
  absentNodesStatus?: Status;
  /** plugins that rejected the pod somewhere (drives event-based requeueing) */
  unschedulablePlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

export function newDiagnosis(): Diagnosis {
  return {
    nodeToStatus: new NodeToStatus(),
    unschedulablePlugins: new Set(),
    preFilterMsg: '',
    postFilterMsg: '',
  };
}

export class FitError {
  readonly name = 'FitError';
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  /** reason → number of nodes, over explicit and absent nodes */
  histogram(): Map<string, number> {
    const reasons = new Map<string, number>();
    const { statuses, counts } = this.diagnosis.nodeToStatus.distinct();
    for (let i = 0; i < statuses.length; i++) {
      for (const r of statuses[i].reasons) reasons.set(r, (reasons.get(r) ?? 0) + counts[i]);
    }
    const absent = this.numAllNodes - this.diagnosis.nodeToStatus.size;
    if (absent > 0 && this.diagnosis.absentNodesStatus) {
      for (const r of this.diagnosis.absentNodesStatus.reasons)
        reasons.set(r, (reasons.get(r) ?? 0) + absent);
    }
    return reasons;
  }

  get message(): string {
    return formatFitError(this.numAllNodes, this.diagnosis, this.histogram());
  }

  toString(): string {
    return this.message;
  }
}

/** Go's sort.Strings order: byte-wise (UTF-16 code unit order equals it for the ASCII reasons used) */
function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatFitError(numAllNodes: number, d: Diagnosis, reasons: Map<string, number>): string {
  let msg = NO_NODE_AVAILABLE_MSG(numAllNodes) + ':';
  if (d.preFilterMsg !== '') {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort(byteCompare);
    if (parts.length) msg += ` ${parts.join(', ')}.`;
  }
  if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}`;
  return msg;
}

/**
 * The endpoint model held as columns, not as one JS object per endpoint: at 100k Services × 10
 * endpoints an object per endpoint (plus one per slice endpoint, plus a JSON signature per slice)
 * cost ~18 MB per 1,000 Services, most of a full render's memory.
 *
 *   EndpointSlice ──► SliceEndpoints  (per slice one Uint32Array, 3 words per endpoint:
 *                                       flags | zone id << 5, node id, IPv4 address;
 *                                       other address texts and rare fields on the side)
 *   slices of a Service, one port ──► EndpointList (per service port one Uint32Array, 4 words
 *                                       per endpoint: port | flags << 16, node id, zone id, IPv4)
 *   EndpointListMap.get(key) ──► readonly EndpointInfo[]  (built when a renderer asks for it)
 *
 * Node names and zones are interned in one StringTable per cache (id 0 = absent). An address
 * that is a canonical dotted quad is held as its uint32 value; any other text (IPv6, a sloppy
 * IPv4 such as "010.0.0.1") is kept as text with the TEXT flag. The renderers keep reading
 * EndpointInfo objects; those live only while a sync renders their port.
 *
 * Example: slice "a-1" (port 80 "http") with 10.0.0.2 on node-1 (ready) and 10.0.0.1 on node-2
 * (terminating, serving) → SliceEndpoints cols [SERVING|TERMINATING, id(node-2), 0x0a000001,
 * READY|SERVING, id(node-1), 0x0a000002] (sorted by address text, Go byAddress); its Service's
 * port "ns/a:http/TCP" → EndpointList cols [80 | (SERVING|TERMINATING) << 16, id(node-2), 0,
 * 0x0a000001, 80 | (READY|SERVING) << 16, id(node-1), 0, 0x0a000002].
 */
import { formatIPv4, joinHostPort } from './ip.js';
import type { EndpointInfo } from './types.js';

/** Condition bits of an endpoint (both column kinds). */
export const READY = 1;
export const SERVING = 2;
export const TERMINATING = 4;
/** slice endpoints: it has no address at all (Go: an empty Addresses list) */
export const NO_ADDRESS = 8;
/** service-port entries: the endpoint runs on the proxier's node */
export const LOCAL = 8;
/** the address is not a canonical dotted quad: its text is in `texts` (both column kinds) */
export const TEXT = 16;

/** Interned strings; id 0 stands for "absent" (undefined). */
export class StringTable {
  private readonly ids = new Map<string, number>();
  private readonly strings: (string | undefined)[] = [undefined];

  id(s: string | undefined): number {
    if (s === undefined) return 0;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  get(id: number): string | undefined {
    return this.strings[id];
  }
}

/** Fields few endpoints have: more than one address, topology hints. */
export interface RareEndpointFields {
  readonly addresses: readonly string[];
  readonly zoneHints: readonly string[];
  readonly nodeHints: readonly string[];
}

/** One slice's endpoints, sorted by first address (Go endpointSliceInfo.Endpoints). */
export class SliceEndpoints {
  constructor(
    /** per endpoint 3 words: conditions | zone id << 5, node id, IPv4 address (unless TEXT) */
    readonly cols: Uint32Array,
    /** by endpoint index, first addresses that are not canonical dotted quads ("" when none) */
    readonly texts: readonly string[] | null,
    /** by endpoint index: endpoints with more than one address or with hints */
    readonly rare: ReadonlyMap<number, RareEndpointFields> | null,
  ) {}

  get length(): number {
    return this.cols.length / 3;
  }

  flags(i: number): number {
    return this.cols[3 * i] & 31;
  }
  zone(i: number): number {
    return this.cols[3 * i] >>> 5;
  }
  node(i: number): number {
    return this.cols[3 * i + 1];
  }
  /** the IPv4 value of a non-TEXT address */
  v4(i: number): number {
    return this.cols[3 * i + 2];
  }
  /** the first address as written */
  address(i: number): string {
    return this.flags(i) & TEXT ? this.texts![i] : formatIPv4(this.v4(i));
  }

  /** What kube-proxy compares to drop a no-op slice update (Go reflect.DeepEqual of the infos). */
  equals(o: SliceEndpoints): boolean {
    const n = this.cols.length;
    if (n !== o.cols.length) return false;
    for (let i = 0; i < n; i++) if (this.cols[i] !== o.cols[i]) return false;
    for (let i = 0; i < n / 3; i++) if (this.flags(i) & TEXT && this.texts![i] !== o.texts![i]) return false;
    if ((this.rare?.size ?? 0) !== (o.rare?.size ?? 0)) return false;
    for (const [i, r] of this.rare ?? []) {
      const s = o.rare!.get(i);
      if (!s || JSON.stringify(r) !== JSON.stringify(s)) return false;
    }
    return true;
  }
}

const NO_HINTS: ReadonlySet<string> = new Set();

/** One service port's endpoints, sorted by "ip:port" (a Go proxy.EndpointsMap value). */
export class EndpointList {
  constructor(
    /** per endpoint 4 words: port | conditions << 16 (LOCAL, TEXT included), node id, zone id, IPv4 */
    readonly cols: Uint32Array,
    /** by endpoint index, canonical IPs that are not IPv4 (TEXT set) */
    readonly texts: readonly string[] | null,
    /** by endpoint index: topology hints, when any */
    readonly hints: ReadonlyMap<number, { zone: ReadonlySet<string>; node: ReadonlySet<string> }> | null,
    private readonly table: StringTable,
  ) {}

  get length(): number {
    return this.cols.length / 4;
  }

  ip(i: number): string {
    return (this.cols[4 * i] >>> 16) & TEXT ? this.texts![i] : formatIPv4(this.cols[4 * i + 3]);
  }

  /** Go endpointInfo for entry i (a new object: renderers hold it only while they render). */
  at(i: number): EndpointInfo {
    const ip = this.ip(i);
    const w = this.cols[4 * i];
    const port = w & 0xffff;
    const flags = w >>> 16;
    const h = this.hints?.get(i);
    return {
      ip,
      port,
      endpoint: joinHostPort(ip, port),
      isLocal: (flags & LOCAL) !== 0,
      ready: (flags & READY) !== 0,
      serving: (flags & SERVING) !== 0,
      terminating: (flags & TERMINATING) !== 0,
      zoneHints: h?.zone ?? NO_HINTS,
      nodeHints: h?.node ?? NO_HINTS,
      nodeName: this.table.get(this.cols[4 * i + 1]),
      zone: this.table.get(this.cols[4 * i + 2]),
    };
  }

  toArray(): EndpointInfo[] {
    const out = new Array<EndpointInfo>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.at(i);
    return out;
  }

  /**
   * The comparison kube-proxy's endpoints change detection makes (endpoint, locality,
   * conditions, hints; not node name or zone, which it does not compare either).
   */
  sameEndpoints(o: EndpointList): boolean {
    const n = this.length;
    if (n !== o.length) return false;
    for (let i = 0; i < n; i++) {
      if (this.cols[4 * i] !== o.cols[4 * i] || this.ip(i) !== o.ip(i)) return false;
      const a = this.hints?.get(i),
        b = o.hints?.get(i);
      if (
        !setEq(a?.zone ?? NO_HINTS, b?.zone ?? NO_HINTS) ||
        !setEq(a?.node ?? NO_HINTS, b?.node ?? NO_HINTS)
      )
        return false;
    }
    return true;
  }
}

function setEq(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

/** One endpoint of a slice, as it enters a service port's list (transient). */
export interface Entry {
  /** IPv4 value, or -1 with `text` the canonical IP */
  v4: number;
  text: string;
  word: number;
  node: number;
  zone: number;
  rare: RareEndpointFields | undefined;
}

/**
 * Builds a service port's EndpointList from its entries keyed by "ip:port" (the caller has
 * deduplicated them as Go's endpointsMapFromEndpointInfo does); sorted by that text (Go byEndpoint).
 */
export function endpointList(entries: Map<string, Entry>, table: StringTable): EndpointList {
  const keys = [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const cols = new Uint32Array(4 * keys.length);
  let texts: string[] | null = null;
  let hints: Map<number, { zone: ReadonlySet<string>; node: ReadonlySet<string> }> | null = null;
  keys.forEach((k, i) => {
    const e = entries.get(k)!;
    cols[4 * i] = e.v4 < 0 ? (e.word | (TEXT << 16)) >>> 0 : e.word;
    cols[4 * i + 1] = e.node;
    cols[4 * i + 2] = e.zone;
    if (e.v4 < 0) {
      texts ??= new Array<string>(keys.length).fill('');
      texts[i] = e.text;
    } else cols[4 * i + 3] = e.v4;
    if (e.rare && (e.rare.zoneHints.length || e.rare.nodeHints.length)) {
      hints ??= new Map();
      hints.set(i, {
        zone: e.rare.zoneHints.length ? new Set(e.rare.zoneHints) : NO_HINTS,
        node: e.rare.nodeHints.length ? new Set(e.rare.nodeHints) : NO_HINTS,
      });
    }
  });
  return new EndpointList(cols, texts, hints, table);
}

/** An entry of a service port's list from slice endpoint i (its IP canonical, of the family). */
export function entryOf(
  slice: SliceEndpoints,
  i: number,
  v4: number,
  text: string,
  port: number,
  local: boolean,
): Entry {
  const flags = slice.flags(i) & (READY | SERVING | TERMINATING);
  return {
    v4,
    text,
    word: (port | ((flags | (local ? LOCAL : 0)) << 16)) >>> 0,
    node: slice.node(i),
    zone: slice.zone(i),
    rare: slice.rare?.get(i),
  };
}

/**
 * A Go proxy.EndpointsMap over EndpointLists: what a ProxyState hands its renderers. `get` builds
 * a port's EndpointInfo[] when asked; the last one built is kept, so a renderer asking twice for
 * the port it is rendering gets the same objects (its chain-name cache is keyed by them).
 */
export class EndpointListMap implements ReadonlyMap<string, readonly EndpointInfo[]> {
  private readonly lists = new Map<string, EndpointList>();
  private lastList: EndpointList | null = null;
  private lastArray: readonly EndpointInfo[] = [];

  get size(): number {
    return this.lists.size;
  }

  has(key: string): boolean {
    return this.lists.has(key);
  }

  get(key: string): readonly EndpointInfo[] | undefined {
    const l = this.lists.get(key);
    if (!l) return undefined;
    if (l !== this.lastList) {
      this.lastArray = l.toArray();
      this.lastList = l;
    }
    return this.lastArray;
  }

  /** The number of endpoints of a service port, without building them. */
  lengthOf(key: string): number {
    return this.lists.get(key)?.length ?? 0;
  }

  list(key: string): EndpointList | undefined {
    return this.lists.get(key);
  }

  set(key: string, list: EndpointList): void {
    this.lists.set(key, list);
  }

  delete(key: string): void {
    if (this.lists.get(key) === this.lastList) {
      this.lastList = null;
      this.lastArray = [];
    }
    this.lists.delete(key);
  }

  keys(): MapIterator<string> {
    return this.lists.keys();
  }

  *values(): MapIterator<readonly EndpointInfo[]> {
    for (const l of this.lists.values()) yield l.toArray();
  }

  *entries(): MapIterator<[string, readonly EndpointInfo[]]> {
    for (const [k, l] of this.lists) yield [k, l.toArray()];
  }

  [Symbol.iterator](): MapIterator<[string, readonly EndpointInfo[]]> {
    return this.entries();
  }

  forEach(
    fn: (
      value: readonly EndpointInfo[],
      key: string,
      map: ReadonlyMap<string, readonly EndpointInfo[]>,
    ) => void,
  ): void {
    for (const [k, l] of this.lists) fn(l.toArray(), k, this);
  }
}

/** The endpoint count of a service port, without building its EndpointInfo objects when the map can say. */
export function endpointCount(map: ReadonlyMap<string, readonly EndpointInfo[]>, key: string): number {
  return map instanceof EndpointListMap ? map.lengthOf(key) : (map.get(key)?.length ?? 0);
}

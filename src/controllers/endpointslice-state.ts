/**
 * What the EndpointSlice controller remembers of a Service between two syncs, so that a sync
 * after a few pod changes costs those pods instead of all the Service's pods.
 *
 * Upstream's reconciler (staging/src/k8s.io/endpointslice/reconciler.go, reconcileByAddressType)
 * rebuilds the desired endpoints from every selected pod on each sync; the result only depends
 * on the pods that changed since the last sync, provided the slices are still what that sync
 * left behind. This module checks exactly that proviso: the slices in the informer are the
 * ones seen at the last sync's start with the last sync's own writes applied (same objects,
 * the resourceVersions the writes returned), the Service object and the nodes' zones are the
 * same, and the last sync ended with one port group whose every endpoint is placed once. When
 * anything else happened (a failed write, someone else's edit, a relist, a second port group,
 * a duplicate endpoint) the controller recomputes in full, as upstream always does.
 */
import type { Endpoint, EndpointPort, EndpointSlice, Service } from '../api/types.js';

/** where a pod's endpoint is: the slice's name and the endpoint object in it */
export interface Placed {
  slice: string;
  ep: Endpoint;
}

export interface ServiceState {
  svc: Service;
  /** the nodes' zone epoch the sync saw (a zone change invalidates every endpoint's zone) */
  nodeEpoch: number;
  /**
   * the managed slices at the sync's start that it did not write, by name (the slices it wrote are
   * not kept: their old revisions would stay alive until the Service's next sync)
   */
  kept: Map<string, EndpointSlice>;
  /** the sync's own writes: slice name → the returned resourceVersion, '' for a delete */
  writes: Map<string, string>;
  /** the single port group's ports and their canonical key */
  ports: EndpointPort[];
  pk: string;
  /** endpoint key (targetRef uid) → its place in the kept slices; built on first use */
  index?: Map<string, Placed>;
}

/**
 * Are `current` (the managed slices now) the kept slices plus our writes? Same objects for the
 * slices nobody wrote, our resourceVersion for the ones we wrote, gone where we deleted.
 */
export function slicesAsLeft(st: ServiceState, current: EndpointSlice[]): boolean {
  let kept = 0;
  for (const c of current) {
    const name = c.metadata.name!;
    const w = st.writes.get(name);
    if (w !== undefined) {
      if (w === '' || c.metadata.resourceVersion !== w) return false;
    } else if (st.kept.get(name) !== c) return false;
    else kept++;
  }
  // every kept slice is still there, every write is accounted for
  let written = 0;
  for (const w of st.writes.values()) if (w !== '') written++;
  return kept === st.kept.size && current.length === kept + written;
}

/** the slices of `existing` a sync did not write: what its state keeps */
export function keptSlices(
  existing: EndpointSlice[],
  writes: Map<string, string>,
): Map<string, EndpointSlice> {
  const kept = new Map<string, EndpointSlice>();
  for (const s of existing) if (!writes.has(s.metadata.name!)) kept.set(s.metadata.name!, s);
  return kept;
}

/** drop the index entries of the slices a sync wrote (their new revisions are indexed on next use) */
export function forgetWritten(
  index: Map<string, Placed>,
  existing: EndpointSlice[],
  writes: Map<string, string>,
): void {
  for (const s of existing) {
    const name = s.metadata.name!;
    if (!writes.has(name)) continue;
    for (const ep of s.endpoints ?? []) {
      const k = keyOfEndpoint(ep)!;
      if (index.get(k)?.slice === name) index.delete(k);
    }
  }
}

const keyOfEndpoint = (e: Endpoint): string | undefined => e.targetRef?.uid;

function place(index: Map<string, Placed>, s: EndpointSlice): boolean {
  for (const ep of s.endpoints ?? []) {
    const k = keyOfEndpoint(ep);
    if (k === undefined || index.has(k)) return false; // no uid, or a duplicate: recompute in full
    index.set(k, { slice: s.metadata.name!, ep });
  }
  return true;
}

/**
 * The endpoint index over `current`: the kept slices' index plus the slices the last sync
 * wrote, or built from scratch. undefined when an endpoint has no pod uid or appears twice.
 */
export function indexOf(st: ServiceState, current: EndpointSlice[]): Map<string, Placed> | undefined {
  if (!st.index) {
    const index = new Map<string, Placed>();
    for (const s of current) if (!place(index, s)) return undefined;
    return index;
  }
  const index = st.index;
  for (const s of current) if (st.writes.has(s.metadata.name!) && !place(index, s)) return undefined;
  return index;
}

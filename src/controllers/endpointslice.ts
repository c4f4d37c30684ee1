/**
 * The EndpointSlice controller (pkg/controller/endpointslice + staging endpointslice reconciler):
 * for every Service with a selector, the pods it selects become endpoints in EndpointSlices
 * labelled kubernetes.io/service-name=<svc> and managed-by endpointslice-controller.k8s.io,
 * at most maxEndpointsPerSlice (100) per slice.
 *
 * - Which pods: selected, with a pod IP, not Succeeded/Failed; terminating pods stay (as upstream
 *   with the EndpointSliceTerminatingCondition behaviour, GA since 1.26).
 * - Conditions: ready = Ready && !terminating, serving = Ready, terminating = deletionTimestamp set;
 *   with publishNotReadyAddresses ready and serving are always true.
 * - Per endpoint: addresses [podIP], nodeName, zone (the node's topology.kubernetes.io/zone),
 *   targetRef to the pod. Ports: the Service's ports with targetPort resolved against the pod's
 *   container ports (named ports); pods resolving to different port numbers get separate slices.
 * - Reconciling keeps churn low like upstream's reconciler: existing slices are updated in place
 *   (stale endpoints removed, changed ones replaced), new endpoints first fill slices that are
 *   already being updated, then any slice with room, then new slices; emptied slices are deleted;
 *   a Service selecting nothing keeps one empty placeholder slice.
 */
import type { EndpointPort, EndpointSlice, Endpoint, Node, Pod, Service } from '../api/types.js';
import { isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { matchesSet } from '../api/label-selector.js';
import { canonicalJson } from './deployment-util.js';
import { controllerRef, isPodReady } from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';
import {
  type ServiceState,
  forgetWritten,
  indexOf,
  keptSlices,
  slicesAsLeft,
} from './endpointslice-state.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.k8s.io';
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** the ports of a Service as seen through one pod (targetPort resolved; undefined when a named port is missing) */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec.ports ?? []) {
    const tp = sp.targetPort ?? sp.port;
    let port: number | undefined;
    if (typeof tp === 'number') port = tp;
    else if (/^\d+$/.test(tp)) port = Number(tp);
    else {
      for (const c of pod.spec.containers)
        for (const cp of c.ports ?? [])
          if (cp.name === tp && (cp.protocol ?? 'TCP') === (sp.protocol ?? 'TCP')) port = cp.containerPort;
    }
    if (port === undefined) continue; // upstream skips ports it cannot resolve for this pod
    out.push({
      name: sp.name ?? '',
      port,
      protocol: sp.protocol ?? 'TCP',
      ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
    });
  }
  return out;
}

/** the endpoint for one pod (podToEndpoint) */
export function podToEndpoint(pod: Pod, node: Node | undefined, publishNotReady: boolean): Endpoint {
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = isPodReady(pod);
  const ep: Endpoint = {
    addresses: [pod.status!.podIP!],
    conditions: {
      ready: publishNotReady || (ready && !terminating),
      serving: publishNotReady || ready,
      terminating,
    },
    targetRef: {
      kind: 'Pod',
      namespace: pod.metadata.namespace,
      name: pod.metadata.name,
      uid: pod.metadata.uid,
    },
  };
  if (pod.spec.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata.labels?.['topology.kubernetes.io/zone'];
  if (zone) ep.zone = zone;
  return ep;
}

/** ShouldPodBeInEndpoints with includeTerminating */
function wantedInEndpoints(pod: Pod): boolean {
  const ph = pod.status?.phase;
  if (ph === 'Succeeded' || ph === 'Failed') return false;
  return !!pod.status?.podIP;
}

/**
 * Does the Service select the pod? A Service without a selector (or with an empty one, which the
 * API's protobuf round trip turns into none) gets no EndpointSlices from this controller.
 */
function selectsPod(svc: Service, pod: Pod): boolean {
  const sel = svc.spec.selector;
  if (!sel || Object.keys(sel).length === 0) return false;
  return matchesSet(sel, pod.metadata.labels);
}

const epKey = (e: Endpoint) => e.targetRef?.uid ?? e.addresses[0];

/** services by the label pairs of their selector, pods by their labels: `<namespace>/<key>=<value>` */
const SELECTOR_INDEX = 'selectorPairs';
const LABEL_INDEX = 'labelPairs';

function selectorPairs(namespace: string | undefined, labels: Record<string, string> | undefined): string[] {
  if (!labels) return [];
  const out: string[] = [];
  for (const k in labels) out.push(`${namespace ?? ''}/${k}=${labels[k]}`);
  return out;
}

/** field-by-field equality of two endpoints (what the reconciler compares; cheap, no JSON) */
export function endpointsEqual(a: Endpoint, b: Endpoint): boolean {
  if (a.addresses.length !== b.addresses.length || a.addresses.some((x, i) => x !== b.addresses[i]))
    return false;
  const ca = a.conditions ?? {},
    cb = b.conditions ?? {};
  if (!!ca.ready !== !!cb.ready || !!ca.serving !== !!cb.serving || !!ca.terminating !== !!cb.terminating)
    return false;
  if (a.nodeName !== b.nodeName || a.zone !== b.zone || a.hostname !== b.hostname) return false;
  const ra = a.targetRef ?? {},
    rb = b.targetRef ?? {};
  return ra.uid === rb.uid && ra.name === rb.name && ra.namespace === rb.namespace;
}

/** a pod's endpoint ports for one service object, and their canonical JSON (the slice group key) */
interface PortsOf {
  svc: Service;
  ports: EndpointPort[];
  pk: string;
}

export class EndpointSliceController {
  readonly queue: WorkQueue<string>;
  private readonly services: Informer<Service>;
  private readonly pods: Informer<Pod>;
  private readonly slices: Informer<EndpointSlice>;
  private readonly nodes: Informer<Node>;
  private running?: Promise<void>;
  /**
   * EndpointSliceTracker: service key → slice name → the resourceVersion we wrote ("" = deleted).
   * A sync waits until the informer has caught up with our own writes, else it would act on a
   * stale view and duplicate slices (upstream returns "informer cache is out of date" and requeues).
   */
  private readonly written = new Map<string, Map<string, string>>();
  stats = { slicesCreated: 0, slicesUpdated: 0, slicesDeleted: 0, staleRequeues: 0, incrementalSyncs: 0 };
  /** service key → the pods (uid → namespace/name) whose events touched it since its last sync */
  private readonly dirty = new Map<string, Map<string, string>>();
  /** service key → what its last successful sync left (endpointslice-state.ts) */
  private readonly states = new Map<string, ServiceState>();
  /** bumped when a node appears, goes or changes zone: endpoints carry their node's zone */
  private nodeEpoch = 0;

  /**
   * @param batchPeriodMs upstream's --endpointslice-updates-batch-period: pod changes are collected
   *   this long before the service syncs (0 = at once, upstream's default)
   */
  constructor(
    private readonly deps: ControllerDeps,
    private readonly batchPeriodMs = 0,
    /** sync from the pods that changed when the slices are as the last sync left them; false = always in full (upstream) */
    private readonly incremental = true,
  ) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'endpointslice');
    this.services = deps.informers.for<Service>('services');
    this.pods = deps.informers.for<Pod>('pods');
    this.slices = deps.informers.for<EndpointSlice>('endpointslices');
    this.nodes = deps.informers.for<Node>('nodes');
    try {
      this.slices.addIndexer('service', (s) => {
        const n = s.metadata.labels?.[SERVICE_NAME_LABEL];
        return n ? [`${s.metadata.namespace}/${n}`] : [];
      });
    } catch {
      /* shared */
    }
    this.services.addEventHandler({
      onAdd: (s) => this.queue.add(keyOf(s)),
      onUpdate: (_o, s) => this.queue.add(keyOf(s)),
      onDelete: (s) => this.queue.add(keyOf(s)),
    });
    try {
      this.services.addIndexer(SELECTOR_INDEX, (s) => selectorPairs(s.metadata.namespace, s.spec.selector));
    } catch {
      /* shared */
    }
    try {
      this.pods.addIndexer(LABEL_INDEX, (p) => selectorPairs(p.metadata.namespace, p.metadata.labels));
    } catch {
      /* shared */
    }
    const podServices = (p: Pod) => {
      // the services whose selector names one of the pod's labels, instead of every service of the
      // namespace (10,000 services in 100 namespaces: 100 selector tests per pod event)
      const found: Service[] = [];
      for (const pair of selectorPairs(p.metadata.namespace, p.metadata.labels))
        this.services.forEachInIndex(SELECTOR_INDEX, pair, (s) => {
          if (!found.includes(s) && selectsPod(s, p)) found.push(s);
        });
      // several: in the namespace's order, as a walk over the namespace's services meets them
      const ordered =
        found.length < 2 ? found : this.services.list(p.metadata.namespace).filter((s) => found.includes(s));
      for (const s of ordered) {
        const k = keyOf(s);
        let d = this.dirty.get(k);
        if (!d) this.dirty.set(k, (d = new Map()));
        d.set(p.metadata.uid!, keyOf(p));
        this.queue.addAfter(k, this.batchPeriodMs);
      }
    };
    const zone = (n: Node) => n.metadata.labels?.['topology.kubernetes.io/zone'];
    this.nodes.addEventHandler({
      onAdd: () => this.nodeEpoch++,
      onUpdate: (o, n) => {
        if (zone(o) !== zone(n)) this.nodeEpoch++;
      },
      onDelete: () => this.nodeEpoch++,
    });
    this.pods.addEventHandler({
      onAdd: podServices,
      onUpdate: (o, p) => {
        if (
          o.status?.podIP === p.status?.podIP &&
          isPodReady(o) === isPodReady(p) &&
          !!o.metadata.deletionTimestamp === !!p.metadata.deletionTimestamp &&
          o.spec.nodeName === p.spec.nodeName &&
          o.status?.phase === p.status?.phase &&
          canonicalJson(o.metadata.labels) === canonicalJson(p.metadata.labels)
        )
          return;
        podServices(o);
        podServices(p);
      },
      onDelete: podServices,
    });
    const sliceOwner = (s: EndpointSlice) => {
      if (s.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY) return;
      const n = s.metadata.labels?.[SERVICE_NAME_LABEL];
      if (n) this.queue.add(`${s.metadata.namespace}/${n}`);
    };
    const observe = (sl: EndpointSlice, deleted: boolean) => {
      const n = sl.metadata.labels?.[SERVICE_NAME_LABEL];
      const w = n && this.written.get(`${sl.metadata.namespace}/${n}`);
      if (!w) return;
      const want = w.get(sl.metadata.name!);
      if (want === undefined) return;
      if (deleted ? true : want !== '' && Number(sl.metadata.resourceVersion) >= Number(want))
        w.delete(sl.metadata.name!);
    };
    this.slices.addEventHandler({
      onAdd: (sl) => observe(sl, false),
      onUpdate: (_o, sl) => observe(sl, false),
      onDelete: (sl) => {
        observe(sl, true);
        sliceOwner(sl);
      },
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  private readonly portCache = new WeakMap<Pod, PortsOf>();
  /**
   * the distinct port lists of a service object's pods: the pods of one Deployment have equal ports,
   * so their cache entries are one (one entry, array and key string per distinct list, not per pod)
   */
  private readonly portLists = new WeakMap<Service, Map<string, PortsOf>>();
  private portsOf(svc: Service, p: Pod): PortsOf {
    const c = this.portCache.get(p);
    if (c && c.svc === svc) return c;
    const ports = endpointPorts(svc, p);
    const pk = canonicalJson(ports);
    let lists = this.portLists.get(svc);
    if (!lists) this.portLists.set(svc, (lists = new Map()));
    let v = lists.get(pk);
    if (!v) lists.set(pk, (v = { svc, ports, pk }));
    this.portCache.set(p, v);
    return v;
  }

  /**
   * podToEndpoint, kept per cached pod object (a new revision is a new object) and node object: a
   * service's sync rebuilds every endpoint, and between two syncs most pods did not change.
   * Endpoints are never modified once built.
   */
  private readonly endpoints = new WeakMap<Pod, { ep: Endpoint; node: Node | undefined; pnr: boolean }>();
  private endpointOf(p: Pod, publishNotReady: boolean): Endpoint {
    const node = p.spec.nodeName ? this.nodes.get(undefined, p.spec.nodeName) : undefined;
    const c = this.endpoints.get(p);
    if (c && c.node === node && c.pnr === publishNotReady) return c.ep;
    const ep = podToEndpoint(p, node, publishNotReady);
    this.endpoints.set(p, { ep, node, pnr: publishNotReady });
    return ep;
  }

  private track(svcKey: string, name: string, rv: string): void {
    // the watch event may already have arrived
    const cur = this.slices.get(svcKey.split('/')[0], name);
    if (rv === '' ? !cur : cur && Number(cur.metadata.resourceVersion) >= Number(rv)) return;
    let w = this.written.get(svcKey);
    if (!w) this.written.set(svcKey, (w = new Map()));
    w.set(name, rv);
  }

  async sync(key: string): Promise<void> {
    const w = this.written.get(key);
    if (w && w.size > 0) {
      this.stats.staleRequeues++;
      throw new Error(`EndpointSlice informer cache is out of date for service ${key}`);
    }
    const dirty = this.dirty.get(key);
    this.dirty.delete(key);
    const st = this.states.get(key);
    // set again only when this sync succeeds: a failed one leaves slices nobody can predict
    this.states.delete(key);
    const svc = this.services.getByKey(key);
    const existing = this.slices
      .byIndex('service', key)
      .filter((s) => s.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY);
    const writes = new Map<string, string>();
    if (!svc) {
      for (const s of existing) await this.deleteSlice(s, writes);
      return;
    }
    if (!svc.spec.selector || Object.keys(svc.spec.selector).length === 0) return;
    const changed = st && this.incremental ? this.syncChanged(key, st, svc, existing, dirty) : undefined;
    if (changed) {
      this.stats.incrementalSyncs++;
      return changed;
    }
    const nodeEpoch = this.nodeEpoch;
    const publishNotReady = !!svc.spec.publishNotReadyAddresses;
    // desired endpoints grouped by resolved port list
    const groups = new Map<string, { ports: EndpointPort[]; eps: Map<string, Endpoint> }>();
    // the pods under the selector's rarest label (upstream lists the namespace with the selector)
    let rarest = '';
    let fewest = Infinity;
    for (const pair of selectorPairs(svc.metadata.namespace, svc.spec.selector)) {
      const n = this.pods.countInIndex(LABEL_INDEX, pair);
      if (n < fewest) [rarest, fewest] = [pair, n];
    }
    const pods = this.pods
      .byIndex(LABEL_INDEX, rarest)
      .filter((p) => selectsPod(svc, p) && wantedInEndpoints(p));
    pods.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    for (const p of pods) {
      const { ports, pk } = this.portsOf(svc, p);
      let g = groups.get(pk);
      if (!g) groups.set(pk, (g = { ports, eps: new Map() }));
      const ep = this.endpointOf(p, publishNotReady);
      g.eps.set(epKey(ep), ep);
    }
    const byPorts = new Map<string, EndpointSlice[]>();
    for (const s of existing) {
      const pk = canonicalJson(s.ports ?? []);
      if (!byPorts.has(pk)) byPorts.set(pk, []);
      byPorts.get(pk)!.push(s);
    }
    const work: Promise<void>[] = [];
    const seenGroups = new Set<string>();
    for (const [pk, g] of groups) {
      seenGroups.add(pk);
      work.push(this.reconcileGroup(svc, g.ports, g.eps, byPorts.get(pk) ?? [], writes));
    }
    // slices for port sets nobody resolves to any more
    let kept = 0;
    for (const [pk, ss] of byPorts) {
      if (seenGroups.has(pk)) {
        kept++;
        continue;
      }
      for (const s of ss) {
        // keep one placeholder when the service has no endpoints at all
        if (groups.size === 0 && kept === 0 && (s.endpoints ?? []).length === 0) {
          kept++;
          continue;
        }
        work.push(this.deleteSlice(s, writes));
      }
    }
    if (groups.size === 0 && kept === 0) work.push(this.createSlice(svc, [], [], writes));
    const results = await Promise.allSettled(work);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw failed.reason;
    if (this.incremental && groups.size === 1) {
      const [[pk, g]] = groups;
      this.states.set(key, {
        svc,
        nodeEpoch,
        kept: keptSlices(existing, writes),
        writes,
        ports: g.ports,
        pk,
      });
    }
  }

  /**
   * The sync from the pods that changed since the last one (their uids in `dirty`), when the
   * slices are as that sync left them: the same slice writes, in the same order, as the full
   * recomputation below would make (test/controllers/endpointslice-incremental.test.ts runs
   * both side by side). undefined = not applicable, nothing written; recompute in full.
   */
  private syncChanged(
    key: string,
    st: ServiceState,
    svc: Service,
    existing: EndpointSlice[],
    dirty: Map<string, string> | undefined,
  ): Promise<void> | undefined {
    if (st.svc !== svc || st.nodeEpoch !== this.nodeEpoch || !slicesAsLeft(st, existing)) return undefined;
    const index = indexOf(st, existing);
    if (!index) return undefined;
    const publishNotReady = !!svc.spec.publishNotReadyAddresses;
    // the desired endpoint of a pod uid now (undefined = not an endpoint); false = another port group
    const desiredOf = (uid: string, podKey: string): Endpoint | undefined | false => {
      const p = this.pods.getByKey(podKey);
      if (!p || p.metadata.uid !== uid || !selectsPod(svc, p) || !wantedInEndpoints(p)) return undefined;
      if (this.portsOf(svc, p).pk !== st.pk) return false;
      return this.endpointOf(p, publishNotReady);
    };
    const changed = new Map<string, Map<string, Endpoint | undefined>>(); // slice → uid → replacement
    const remaining: { name: string; ep: Endpoint }[] = [];
    let dropped = 0;
    for (const [uid, podKey] of dirty ?? []) {
      const want = desiredOf(uid, podKey);
      if (want === false) return undefined;
      const cur = index.get(uid);
      if (cur) {
        if (want && endpointsEqual(want, cur.ep)) continue;
        if (!want) dropped++;
        let c = changed.get(cur.slice);
        if (!c) changed.set(cur.slice, (c = new Map()));
        c.set(uid, want);
      } else if (want) remaining.push({ name: want.targetRef!.name!, ep: want });
    }
    // no endpoint left: the full path keeps the one empty EndpointSlice upstream keeps for a
    // Service without endpoints (reconciler.go, placeholderSliceCompare)
    if (index.size - dropped + remaining.length === 0) return undefined;
    // an endpoint that did not change, as the full path rebuilds it from its pod
    const rebuilt = (e: Endpoint): Endpoint | undefined => {
      const ref = e.targetRef!;
      const p = this.pods.get(ref.namespace, ref.name!);
      return p && p.metadata.uid === ref.uid ? this.endpointOf(p, publishNotReady) : undefined;
    };
    const toUpdate: { slice: EndpointSlice; eps: Endpoint[] }[] = [];
    const unchanged: { slice: EndpointSlice; eps: Endpoint[] }[] = [];
    const toDelete: EndpointSlice[] = [];
    for (const s of [...existing].sort(byName)) {
      const c = changed.get(s.metadata.name!);
      if (!c && (s.endpoints ?? []).length >= MAX_ENDPOINTS_PER_SLICE) continue; // unchanged and full
      const eps: Endpoint[] = [];
      for (const e of s.endpoints ?? []) {
        const uid = e.targetRef!.uid!;
        const ours = c?.has(uid);
        const ep = ours ? c!.get(uid) : rebuilt(e);
        if (ep) eps.push(ep);
        else if (!ours) return undefined; // a pod gone without an event: not as the last sync left it
      }
      if (!c) unchanged.push({ slice: s, eps });
      else if (eps.length === 0) toDelete.push(s);
      else toUpdate.push({ slice: s, eps });
    }
    remaining.sort((a, b) => (a.name < b.name ? -1 : 1));
    const writes = new Map<string, string>();
    const eps = remaining.map((r) => r.ep);
    return this.place(svc, st.ports, toUpdate, unchanged, toDelete, eps, writes).then(() => {
      forgetWritten(index, existing, writes);
      this.states.set(key, { ...st, kept: keptSlices(existing, writes), writes, index });
    });
  }

  private reconcileGroup(
    svc: Service,
    ports: EndpointPort[],
    desired: Map<string, Endpoint>,
    slices: EndpointSlice[],
    writes: Map<string, string>,
  ): Promise<void> {
    const placed = new Set<string>();
    const toUpdate: { slice: EndpointSlice; eps: Endpoint[] }[] = [];
    const unchanged: { slice: EndpointSlice; eps: Endpoint[] }[] = [];
    const toDelete: EndpointSlice[] = [];
    for (const s of [...slices].sort(byName)) {
      let changed = false;
      const eps: Endpoint[] = [];
      for (const e of s.endpoints ?? []) {
        const k = epKey(e);
        const want = desired.get(k);
        if (!want || placed.has(k)) {
          changed = true;
          continue;
        }
        placed.add(k);
        if (!endpointsEqual(want, e)) changed = true;
        eps.push(want);
      }
      if (eps.length === 0 && (changed || (s.endpoints ?? []).length === 0)) toDelete.push(s);
      else if (changed) toUpdate.push({ slice: s, eps });
      else unchanged.push({ slice: s, eps });
    }
    const remaining = [...desired.values()].filter((e) => !placed.has(epKey(e)));
    return this.place(svc, ports, toUpdate, unchanged, toDelete, remaining, writes);
  }

  /** the reconciler's placement of new endpoints, then its writes (updates, creates, deletes) */
  private async place(
    svc: Service,
    ports: EndpointPort[],
    toUpdate: { slice: EndpointSlice; eps: Endpoint[] }[],
    unchanged: { slice: EndpointSlice; eps: Endpoint[] }[],
    toDelete: EndpointSlice[],
    remaining: Endpoint[],
    writes: Map<string, string>,
  ): Promise<void> {
    // fill slices being updated first, then unchanged ones with room (fewest writes), then new slices
    for (const bucket of [toUpdate, unchanged]) {
      for (const u of bucket) {
        while (remaining.length && u.eps.length < MAX_ENDPOINTS_PER_SLICE) {
          u.eps.push(remaining.shift()!);
          if (bucket === unchanged && !toUpdate.includes(u)) toUpdate.push(u);
        }
      }
    }
    // reuse a slice marked for deletion rather than delete + create
    const work: Promise<void>[] = [];
    while (remaining.length) {
      const chunk = remaining.splice(0, MAX_ENDPOINTS_PER_SLICE);
      const reuse = toDelete.shift();
      if (reuse) toUpdate.push({ slice: reuse, eps: chunk });
      else work.push(this.createSlice(svc, ports, chunk, writes));
    }
    for (const u of toUpdate) work.push(this.updateSlice(u.slice, ports, u.eps, writes));
    for (const s of toDelete) work.push(this.deleteSlice(s, writes));
    await Promise.all(work);
  }

  private async createSlice(
    svc: Service,
    ports: EndpointPort[],
    eps: Endpoint[],
    writes: Map<string, string>,
  ): Promise<void> {
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        generateName: `${svc.metadata.name}-`,
        namespace: svc.metadata.namespace,
        labels: {
          ...(svc.metadata.labels ?? {}),
          [SERVICE_NAME_LABEL]: svc.metadata.name!,
          [MANAGED_BY_LABEL]: MANAGED_BY,
        },
        ownerReferences: [controllerRef(svc)],
      },
      addressType: 'IPv4',
      endpoints: eps,
      ports,
    };
    const c = await this.deps.api.create('endpointslices', slice);
    writes.set(c.metadata.name!, c.metadata.resourceVersion ?? '0');
    this.track(keyOf(svc), c.metadata.name!, c.metadata.resourceVersion ?? '0');
    this.stats.slicesCreated++;
  }

  private async updateSlice(
    s: EndpointSlice,
    ports: EndpointPort[],
    eps: Endpoint[],
    writes: Map<string, string>,
  ): Promise<void> {
    const u = await this.deps.api.update('endpointslices', { ...s, endpoints: eps, ports });
    writes.set(u.metadata.name!, u.metadata.resourceVersion ?? '0');
    this.track(
      `${s.metadata.namespace}/${s.metadata.labels?.[SERVICE_NAME_LABEL]}`,
      u.metadata.name!,
      u.metadata.resourceVersion ?? '0',
    );
    this.stats.slicesUpdated++;
  }

  private async deleteSlice(s: EndpointSlice, writes: Map<string, string>): Promise<void> {
    try {
      writes.set(s.metadata.name!, '');
      await this.deps.api.delete('endpointslices', s.metadata.namespace, s.metadata.name!);
      this.track(`${s.metadata.namespace}/${s.metadata.labels?.[SERVICE_NAME_LABEL]}`, s.metadata.name!, '');
      this.stats.slicesDeleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

const byName = (a: EndpointSlice, b: EndpointSlice) => (a.metadata.name! < b.metadata.name! ? -1 : 1);

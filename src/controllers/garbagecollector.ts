/**
 * The garbage collector (upstream: pkg/controller/garbagecollector, garbagecollector.go and
 * graph_builder.go, release-1.34): objects whose owners are gone are deleted, and deletions that
 * asked for it wait for their dependents or release them. It watches every built-in kind that can be
 * deleted (events aside) and keeps the owner graph from ownerReferences:
 *
 * - **Background** (the default): the owner is deleted at once; when its DELETED event arrives, its
 *   dependents are queued, found to have only dangling owner references, and deleted — each with
 *   the policy its own finalizers ask for, Background otherwise — so a Deployment takes its
 *   ReplicaSets and they take their pods.
 * - **Foreground**: the ApiServer keeps the owner with a deletionTimestamp and the
 *   `foregroundDeletion` finalizer; the collector deletes its dependents (those that themselves have
 *   dependents in the foreground too) and removes the finalizer once no dependent with
 *   `blockOwnerDeletion: true` is left, which deletes the owner.
 * - **Orphan**: the owner keeps the `orphan` finalizer until the collector has removed the owner
 *   references to it from every dependent; then the finalizer goes and so does the owner.
 *
 * attemptToDeleteItem's classification of an item's owners: *solid* (exists, not waiting for its
 * dependents), *dangling* (absent, or present with another uid — confirmed by a GET, not the
 * cache), *waitingForDependentsDeletion* (being deleted in the foreground). With a solid owner the
 * item stays and loses only its dangling and waiting references; otherwise it is deleted.
 *
 * Example: deployment web (uid d) → replicaset web-x (owner d) → pods web-x-a, web-x-b (owner rs).
 *   delete web, Background  → web gone; DELETED(web) queues web-x; its owner d is dangling → delete
 *   web-x (Background) → DELETED(web-x) queues both pods → deleted with their grace period.
 *   delete web, Foreground  → web gets foregroundDeletion; web-x is deleted in the foreground (it
 *   has dependents) → the pods go, then web-x's finalizer, then web's finalizer → web gone.
 *   delete web, Orphan      → web-x's ownerReferences lose d; web's orphan finalizer removed.
 *
 * Owners named by a loaded snapshot but not part of it (`outsideOwners`) count as existing.
 *
 * Simplified (docs/controllers.md): custom resources are not watched (only built-in kinds); owners
 * are looked up in the informer caches and, when not there, by one GET (upstream keeps virtual
 * nodes for owners it has not observed and the absentOwnerCache); dependency cycles are not
 * detected; a pod deleted by the collector gets its terminationGracePeriodSeconds.
 */
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../api/apiserver-delete.js';
import { RESOURCES, lookupKind, type ResourceInfo } from '../api/registry.js';
import type { KubeObject, OwnerReference } from '../api/types.js';
import { isConflict, isNotFound, type DeleteOptions } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import { podGracePeriod } from './pod-util.js';
import type { ControllerDeps } from './replicaset.js';
import type { Pod } from '../api/types.js';

/** what the collector knows of an observed object */
interface GraphNode {
  info: ResourceInfo;
  namespace?: string;
  name: string;
  owners: OwnerReference[];
}

/** ignoredResources: events are never owners worth a watch */
const IGNORED = new Set(['events']);

const hasFinalizer = (o: KubeObject, f: string) => o.metadata.finalizers?.includes(f) ?? false;
const deletingInForeground = (o: KubeObject) =>
  o.metadata.deletionTimestamp !== undefined && hasFinalizer(o, FOREGROUND_FINALIZER);

export class GarbageCollector {
  /** items: `d:<uid>` attemptToDelete, `o:<uid>` attemptToOrphan, `v:<uid>` an owner never observed */
  readonly queue: WorkQueue<string>;
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();
  /** owners named by a dependent but not (yet) observed: uid → one reference and the namespace */
  private readonly virtual = new Map<string, { ref: OwnerReference; namespace?: string }>();
  private running?: Promise<void>;
  deleted = 0;
  orphaned = 0;

  /**
   * @param outsideOwners uids of owners known to exist outside this cluster's objects (a snapshot's
   * references to owners it does not include): never taken for deleted
   */
  constructor(
    private readonly deps: ControllerDeps,
    private readonly outsideOwners: ReadonlySet<string> = new Set(),
  ) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'garbagecollector');
    for (const info of RESOURCES) {
      if (IGNORED.has(info.resource)) continue;
      const inf = deps.informers.for<KubeObject>(info.resource);
      this.informers.set(info.resource, inf);
      inf.addEventHandler({
        onAdd: (o) => this.observe(info, o, undefined),
        onUpdate: (old, o) => this.observe(info, o, old),
        onDelete: (o) => this.forget(o),
      });
    }
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** graph_builder processGraphChanges for an added or updated object */
  private observe(info: ResourceInfo, o: KubeObject, old: KubeObject | undefined): void {
    const uid = o.metadata.uid;
    if (!uid) return;
    const prev = this.nodes.get(uid);
    const owners = o.metadata.ownerReferences ?? [];
    for (const r of prev?.owners ?? []) this.dependents.get(r.uid)?.delete(uid);
    for (const r of owners) {
      let s = this.dependents.get(r.uid);
      if (!s) this.dependents.set(r.uid, (s = new Set()));
      s.add(uid);
    }
    this.nodes.set(uid, { info, namespace: o.metadata.namespace, name: o.metadata.name!, owners });
    if (this.virtual.delete(uid)) {
      /* observed at last */
    }
    // owners never observed: find out whether they exist (upstream: virtual nodes)
    for (const r of owners) {
      if (this.nodes.has(r.uid) || this.virtual.has(r.uid)) continue;
      this.virtual.set(r.uid, { ref: r, namespace: o.metadata.namespace });
      this.queue.add(`v:${r.uid}`);
    }
    // references removed: an owner waiting for its dependents may now be free
    if (old) {
      const now = new Set(owners.map((r) => r.uid));
      for (const r of old.metadata.ownerReferences ?? []) if (!now.has(r.uid)) this.queue.add(`d:${r.uid}`);
    }
    if (o.metadata.deletionTimestamp !== undefined) {
      if (hasFinalizer(o, ORPHAN_FINALIZER)) this.queue.add(`o:${uid}`);
      if (hasFinalizer(o, FOREGROUND_FINALIZER)) {
        // markDeletingDependents: every dependent is looked at, then the owner itself
        for (const d of this.dependents.get(uid) ?? []) this.queue.add(`d:${d}`);
        this.queue.add(`d:${uid}`);
      }
    }
  }

  /** an object deleted: its dependents may now be garbage, its foreground owners may be done */
  private forget(o: KubeObject): void {
    const uid = o.metadata.uid;
    if (!uid) return;
    const node = this.nodes.get(uid);
    this.nodes.delete(uid);
    for (const r of node?.owners ?? []) {
      this.dependents.get(r.uid)?.delete(uid);
      this.queue.add(`d:${r.uid}`);
    }
    for (const d of this.dependents.get(uid) ?? []) this.queue.add(`d:${d}`);
  }

  async sync(item: string): Promise<void> {
    const uid = item.slice(2);
    if (item.startsWith('v:')) return this.checkVirtual(uid);
    if (item.startsWith('o:')) return this.attemptToOrphan(uid);
    return this.attemptToDelete(uid);
  }

  /** the cached object of a graph node */
  private cached(uid: string): KubeObject | undefined {
    const n = this.nodes.get(uid);
    if (!n) return undefined;
    const o = this.informers.get(n.info.resource)?.get(n.namespace, n.name);
    return o?.metadata.uid === uid ? o : undefined;
  }

  /** the live object (a GET), or undefined when it is gone or has another uid */
  private async live(info: ResourceInfo, namespace: string | undefined, name: string, uid: string) {
    try {
      const o = await this.deps.api.get<KubeObject>(
        info.resource,
        info.namespaced ? namespace : undefined,
        name,
      );
      return o.metadata.uid === uid ? o : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** a virtual owner: if it does not exist, its dependents are garbage */
  private async checkVirtual(uid: string): Promise<void> {
    const v = this.virtual.get(uid);
    if (!v || this.nodes.has(uid) || this.outsideOwners.has(uid)) return;
    const info = lookupKind(v.ref.apiVersion, v.ref.kind);
    const exists = info ? await this.live(info, v.namespace, v.ref.name, uid) : undefined;
    if (exists) return; // its own event will arrive
    this.virtual.delete(uid);
    for (const d of this.dependents.get(uid) ?? []) this.queue.add(`d:${d}`);
  }

  /** classify one owner reference of an item in `namespace` */
  private async ownerState(
    ref: OwnerReference,
    namespace: string | undefined,
  ): Promise<'solid' | 'dangling' | 'waiting'> {
    if (this.outsideOwners.has(ref.uid)) return 'solid';
    let owner = this.cached(ref.uid);
    if (!owner) {
      const info = lookupKind(ref.apiVersion, ref.kind);
      if (!info) return 'dangling'; // a kind this server does not serve cannot exist
      owner = await this.live(info, namespace, ref.name, ref.uid);
      if (!owner) return 'dangling';
    }
    return deletingInForeground(owner) ? 'waiting' : 'solid';
  }

  /** attemptToDeleteItem */
  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    const item = this.cached(uid);
    if (!node || !item) return;
    if (deletingInForeground(item)) return this.processDeletingDependents(item);
    if (item.metadata.deletionTimestamp !== undefined) return; // already going
    const owners = item.metadata.ownerReferences ?? [];
    if (owners.length === 0) return;
    const solid: OwnerReference[] = [];
    const gone: OwnerReference[] = [];
    let waiting = 0;
    for (const r of owners) {
      const s = await this.ownerState(r, item.metadata.namespace);
      if (s === 'solid') solid.push(r);
      else {
        gone.push(r);
        if (s === 'waiting') waiting++;
      }
    }
    if (solid.length > 0) {
      // keep the item, drop the references that no longer hold it
      if (gone.length > 0) await this.removeOwnerRefs(node, uid, new Set(gone.map((r) => r.uid)));
      return;
    }
    let policy: DeleteOptions['propagationPolicy'];
    if (waiting > 0 && (this.dependents.get(uid)?.size ?? 0) > 0) policy = 'Foreground';
    else if (hasFinalizer(item, ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (hasFinalizer(item, FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    await this.deleteItem(node, item, policy);
  }

  private async deleteItem(node: GraphNode, item: KubeObject, policy: DeleteOptions['propagationPolicy']) {
    try {
      await this.deps.api.delete(node.info.resource, node.namespace, node.name, {
        preconditions: { uid: item.metadata.uid },
        propagationPolicy: policy,
        // a DELETE without a grace period gives a pod its own (the pod strategy's default)
        ...(node.info.kind === 'Pod' ? { gracePeriodSeconds: podGracePeriod(item as Pod) } : {}),
      });
      this.deleted++;
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  /** processDeletingDependentsItem: wait for blocking dependents, then drop foregroundDeletion */
  private async processDeletingDependents(owner: KubeObject): Promise<void> {
    const uid = owner.metadata.uid!;
    let blocking = 0;
    for (const d of this.dependents.get(uid) ?? []) {
      const dep = this.cached(d);
      if (!dep) continue;
      const ref = dep.metadata.ownerReferences?.find((r) => r.uid === uid);
      if (!ref?.blockOwnerDeletion) continue;
      blocking++;
      if (!deletingInForeground(dep)) this.queue.add(`d:${d}`);
    }
    if (blocking > 0) return; // the last blocking dependent's DELETED event re-queues the owner
    await this.removeFinalizer(this.nodes.get(uid)!, uid, FOREGROUND_FINALIZER);
  }

  /** attemptToOrphan: release every dependent, then drop the orphan finalizer */
  private async attemptToOrphan(uid: string): Promise<void> {
    const owner = this.cached(uid);
    const node = this.nodes.get(uid);
    if (!owner || !node || owner.metadata.deletionTimestamp === undefined) return;
    if (!hasFinalizer(owner, ORPHAN_FINALIZER)) return;
    for (const d of [...(this.dependents.get(uid) ?? [])]) {
      const dn = this.nodes.get(d);
      if (dn) await this.removeOwnerRefs(dn, d, new Set([uid]));
      this.orphaned++;
    }
    await this.removeFinalizer(node, uid, ORPHAN_FINALIZER);
  }

  /** update an object through GET + update, retried on conflicts */
  private async edit(node: GraphNode, uid: string, change: (o: KubeObject) => boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const o = await this.live(node.info, node.namespace, node.name, uid);
      if (!o || !change(o)) return;
      try {
        await this.deps.api.update(node.info.resource, o);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= 5) throw err;
      }
    }
  }

  private removeOwnerRefs(node: GraphNode, uid: string, owners: Set<string>): Promise<void> {
    return this.edit(node, uid, (o) => {
      const refs = o.metadata.ownerReferences ?? [];
      const kept = refs.filter((r) => !owners.has(r.uid));
      if (kept.length === refs.length) return false;
      if (kept.length) o.metadata.ownerReferences = kept;
      else delete o.metadata.ownerReferences;
      return true;
    });
  }

  private removeFinalizer(node: GraphNode, uid: string, finalizer: string): Promise<void> {
    return this.edit(node, uid, (o) => {
      const f = o.metadata.finalizers ?? [];
      if (!f.includes(finalizer)) return false;
      o.metadata.finalizers = f.filter((x) => x !== finalizer);
      return true;
    });
  }
}

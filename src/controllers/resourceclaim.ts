/**
 * The ResourceClaim controller (upstream: pkg/controller/resourceclaim/controller.go, Kubernetes
 * v1.34). Two kinds of work item share one queue, as upstream's `pod:` and `claim:` keys:
 *
 * 1. `pod:<ns>/<name>` (syncPod): for each `spec.resourceClaims` entry naming a
 *    ResourceClaimTemplate, a claim is made from the template (api/resource-claims.ts
 *    claimFromTemplate: `<pod>-<claim>-<5 random characters>`, the pod as controlling owner) unless
 *    one owned by the pod with the right pod-claim-name annotation exists; the pod's
 *    `status.resourceClaimStatuses` then names the new claims. Once the pod is bound, an allocated
 *    claim not yet reserved for it is reserved (a pod bound without the scheduler).
 * 2. `claim:<ns>/<name>` (syncClaim): `status.reservedFor` entries of pods that are gone, replaced
 *    (another uid) or done (Succeeded/Failed, or deleted before being bound) are removed; when none
 *    is left the allocation is cleared (deallocation: its devices are free for other claims) and the
 *    scheduler's `resource.kubernetes.io/delete-protection` finalizer removed. A claim generated for
 *    a pod that is done is deleted; one whose pod is gone is left to the garbage collector (the pod
 *    owns it).
 *
 * Example: pod train-0 (uid p) with `resourceClaims: [{name: gpu, resourceClaimTemplateName: h100}]`
 *   ADDED(train-0)   → pod:train-0 → create claim train-0-gpu-x7k2q (owner p), status names it
 *   the scheduler allocates it, reserves it for p, adds the finalizer, binds train-0
 *   train-0 Succeeded → claim:train-0-gpu-x7k2q → reservedFor [] and allocation cleared, finalizer
 *   removed → the pod is done, so the claim is deleted.
 *
 * Simplified: the pod status is written with a PUT of the cached pod (upstream: server-side apply
 * with field manager ResourceClaimController; a conflict requeues the pod here); the "deleted pods"
 * LRU cache is a set of every uid seen deleted; admin access needs no feature check (it is on by
 * default in v1.34); no metrics.
 */
import {
  claimFromTemplate,
  claimIsForPod,
  claimIsReservedForPod,
  claimCanBeReserved,
  claimNameFor,
  owningPod,
  POD_CLAIM_NAME_ANNOTATION,
  podResourceClaims,
  podResourceClaimStatuses,
} from '../api/resource-claims.js';
import { CLAIM_FINALIZER, type ResourceClaim, type ResourceClaimTemplate } from '../api/resource-types.js';
import type { Pod } from '../api/types.js';
import { isNotFound } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import type { ControllerDeps } from './replicaset.js';

/** podResourceClaimIndex: pods by the `<ns>/<claim>` keys of the claims they use */
const POD_CLAIM_INDEX = 'pod-resource-claim-index';
/** claimPodOwnerIndex: claims by the uid of their controlling Pod owner */
const CLAIM_OWNER_INDEX = 'claim-pod-owner-index';

const CLAIM_PREFIX = 'claim:';
const POD_PREFIX = 'pod:';

const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** upstream isPodDone: none of the containers runs or ever will */
function isPodDone(p: Pod): boolean {
  return isTerminal(p) || (!!p.metadata.deletionTimestamp && !p.spec.nodeName);
}

/** upstream podNeedsClaims: false once the pod is gone, terminal, or deleted before being bound */
function podNeedsClaims(p: Pod, deleted: boolean): boolean {
  return !deleted && !isPodDone(p);
}

function podClaimKeys(p: Pod): string[] {
  const ns = p.metadata.namespace ?? 'default';
  const keys: string[] = [];
  for (const pc of podResourceClaims(p)) {
    const r = claimNameFor(p, pc);
    if (!r.error && r.name) keys.push(`${ns}/${r.name}`);
  }
  return keys;
}

export class ResourceClaimController {
  readonly queue: WorkQueue<string>;
  private readonly pods: Informer<Pod>;
  private readonly claims: Informer<ResourceClaim>;
  private readonly templates: Informer<ResourceClaimTemplate>;
  /** upstream's mutation cache: claims this controller created, until its informer has them */
  private readonly created = new Map<string, ResourceClaim>();
  /** uids of pods seen deleted (upstream: the deletedObjects LRU cache) */
  private readonly deletedPods = new Set<string>();
  private running?: Promise<void>;
  /** claims created, reservations removed, claims deallocated, claims deleted */
  readonly stats = { created: 0, unreserved: 0, deallocated: 0, deleted: 0 };

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'resource_claim');
    this.pods = deps.informers.for<Pod>('pods');
    this.claims = deps.informers.for<ResourceClaim>('resourceclaims');
    this.templates = deps.informers.for<ResourceClaimTemplate>('resourceclaimtemplates');
    try {
      this.pods.addIndexer(POD_CLAIM_INDEX, podClaimKeys);
    } catch {
      /* shared: already added */
    }
    try {
      this.claims.addIndexer(CLAIM_OWNER_INDEX, (c) => {
        const o = owningPod(c);
        return o ? [o.uid] : [];
      });
    } catch {
      /* shared: already added */
    }
    this.pods.addEventHandler({
      onAdd: (p) => this.enqueuePod(p, false),
      onUpdate: (_o, p) => this.enqueuePod(p, false),
      onDelete: (p) => this.enqueuePod(p, true),
    });
    this.claims.addEventHandler({
      onAdd: (c) => this.enqueueClaim(c, false),
      onUpdate: (_o, c) => this.enqueueClaim(c, false),
      onDelete: (c) => this.enqueueClaim(c, true),
    });
  }

  run(): void {
    // defaultResourceClaimControllerWorkers: 10 in v1.34 (cmd/kube-controller-manager/app/core.go), no flag
    this.running = runWorkers(this.queue, this.deps.workers ?? 10, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** upstream enqueuePod */
  private enqueuePod(p: Pod, deleted: boolean): void {
    if (podResourceClaims(p).length === 0) return;
    if (deleted && p.metadata.uid) this.deletedPods.add(p.metadata.uid);
    // a pod that will not run any more releases its claims' reservations
    if (!podNeedsClaims(p, deleted)) for (const k of podClaimKeys(p)) this.queue.add(CLAIM_PREFIX + k);
    if (this.podNeedsWork(p))
      this.queue.add(`${POD_PREFIX}${p.metadata.namespace ?? 'default'}/${p.metadata.name}`);
  }

  /** upstream podNeedsWork */
  private podNeedsWork(p: Pod): boolean {
    // a pod that is done gets no claims: the claims syncClaim deletes for it would be made again
    // (the stored upstream versions check deletionTimestamp only; a finished Job pod then loops)
    if (p.metadata.deletionTimestamp || isTerminal(p)) return false;
    const ns = p.metadata.namespace ?? 'default';
    for (const pc of podResourceClaims(p)) {
      const r = claimNameFor(p, pc);
      if (r.error) return true;
      if (r.name === undefined) return false;
      const claim = this.claims.get(ns, r.name);
      if (!claim) return pc.resourceClaimTemplateName != null;
      if (r.mustCheckOwner && claimIsForPod(p, claim)) return false;
      if (!p.spec.nodeName) continue;
      if (claim.status?.allocation && !claimIsReservedForPod(p, claim) && claimCanBeReserved(claim))
        return true;
    }
    return false;
  }

  /** upstream enqueueResourceClaim: the claim itself (unless deleted) and the pods that use it */
  private enqueueClaim(c: ResourceClaim, deleted: boolean): void {
    const key = `${c.metadata.namespace ?? 'default'}/${c.metadata.name}`;
    if (!deleted) this.queue.add(CLAIM_PREFIX + key);
    else this.created.delete(key);
    for (const p of this.pods.byIndex(POD_CLAIM_INDEX, key)) this.enqueuePod(p, false);
  }

  async sync(item: string): Promise<void> {
    const key = item.slice(item.indexOf(':') + 1);
    const slash = key.indexOf('/');
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (item.startsWith(POD_PREFIX)) await this.syncPod(ns, name);
    else await this.syncClaim(ns, name);
  }

  /** upstream syncPod */
  private async syncPod(ns: string, name: string): Promise<void> {
    const pod = this.pods.get(ns, name);
    if (!pod || pod.metadata.deletionTimestamp || isTerminal(pod)) return;
    const made: { name: string; resourceClaimName: string }[] = [];
    for (const pc of podResourceClaims(pod)) {
      try {
        const claimName = await this.handleClaim(pod, pc);
        if (claimName) made.push({ name: pc.name, resourceClaimName: claimName });
      } catch (err) {
        const msg = (err as Error).message;
        this.deps.recorder.event(
          pod,
          'Warning',
          'FailedResourceClaimCreation',
          `PodResourceClaim ${pc.name}: ${msg}`,
        );
        throw new Error(`pod ${ns}/${name}, PodResourceClaim ${pc.name}: ${msg}`);
      }
    }
    if (made.length) {
      const statuses = podResourceClaimStatuses(pod).filter((s) => !made.some((m) => m.name === s.name));
      await this.deps.api.updateStatus<Pod>('pods', {
        ...pod,
        status: { ...(pod.status ?? {}), resourceClaimStatuses: [...statuses, ...made] },
      });
    }
    // the scheduler reserves claims of pods it binds; a pod bound by hand relies on this
    if (!pod.spec.nodeName) return;
    for (const pc of podResourceClaims(pod)) {
      const r = claimNameFor(pod, pc);
      if (r.error) throw new Error(r.error);
      if (r.name === undefined) continue;
      const claim = this.claims.get(ns, r.name);
      if (!claim) return;
      if (r.mustCheckOwner) {
        const notOwner = claimIsForPod(pod, claim);
        if (notOwner) throw new Error(notOwner);
      }
      if (claim.status?.allocation && !claimIsReservedForPod(pod, claim) && claimCanBeReserved(claim))
        await this.deps.api.updateStatus<ResourceClaim>('resourceclaims', {
          ...claim,
          status: {
            ...claim.status,
            reservedFor: [
              ...(claim.status.reservedFor ?? []),
              { resource: 'pods', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
            ],
          },
        });
    }
  }

  /**
   * upstream handleClaim: the name of a claim created for `pc` now (to be written into the pod's
   * status), or undefined when nothing was created.
   */
  private async handleClaim(
    pod: Pod,
    pc: ReturnType<typeof podResourceClaims>[number],
  ): Promise<string | undefined> {
    const ns = pod.metadata.namespace ?? 'default';
    const r = claimNameFor(pod, pc);
    if (r.error && pc.resourceClaimTemplateName == null)
      throw new Error(`checking for claim before creating it: ${r.error}`);
    if (!r.error) {
      if (r.name === undefined) return undefined; // no claim needed
      // recorded in the status: nothing to do while it exists and is the pod's (deleted by accident: made again)
      const existing = this.claims.get(ns, r.name);
      if (existing && !(r.mustCheckOwner && claimIsForPod(pod, existing))) return undefined;
    }
    const templateName = pc.resourceClaimTemplateName;
    if (templateName == null) return undefined;
    // findPodResourceClaim: a claim already made for this pod claim (created, then the status write failed)
    let claim = this.findPodResourceClaim(pod, pc.name);
    if (!claim) {
      const template = this.templates.get(ns, templateName);
      if (!template) throw new Error(`resource claim template "${templateName}": not found`);
      const want = claimFromTemplate(pod, pc.name, template);
      try {
        claim = await this.deps.api.create<ResourceClaim>('resourceclaims', want);
      } catch (err) {
        throw new Error(`create ResourceClaim ${want.metadata.generateName}: ${(err as Error).message}`);
      }
      this.stats.created++;
      this.created.set(`${ns}/${claim.metadata.name}`, claim);
    }
    return claim.metadata.name;
  }

  /** upstream findPodResourceClaim: a claim owned by the pod, annotated with this pod claim's name */
  private findPodResourceClaim(pod: Pod, podClaimName: string): ResourceClaim | undefined {
    const uid = pod.metadata.uid ?? '';
    const mine = (c: ResourceClaim) =>
      owningPod(c)?.uid === uid && c.metadata.annotations?.[POD_CLAIM_NAME_ANNOTATION] === podClaimName;
    return this.claims.byIndex(CLAIM_OWNER_INDEX, uid).find(mine) ?? [...this.created.values()].find(mine);
  }

  /** upstream syncClaim */
  private async syncClaim(ns: string, name: string): Promise<void> {
    let claim = this.claims.get(ns, name);
    if (!claim) return;
    this.created.delete(`${ns}/${name}`);
    const reserved = claim.status?.reservedFor ?? [];
    const valid = [];
    for (const ref of reserved) {
      if ((ref.apiGroup ?? '') !== '' || ref.resource !== 'pods')
        throw new Error(`unsupported ReservedFor entry: ${JSON.stringify(ref)}`);
      if (!(await this.podGone(ns, ref))) valid.push(ref);
    }
    const hasFinalizer = (c: ResourceClaim) => (c.metadata.finalizers ?? []).includes(CLAIM_FINALIZER);
    const withoutFinalizer = (c: ResourceClaim): ResourceClaim => ({
      ...c,
      metadata: {
        ...c.metadata,
        finalizers: (c.metadata.finalizers ?? []).filter((f) => f !== CLAIM_FINALIZER),
      },
    });
    if (valid.length < reserved.length) {
      // deallocate on the transition from used to unused, so the devices are free for others
      // and a later consumer is not tied to the node the previous one ran on
      const status = { ...claim.status, reservedFor: valid.length ? valid : undefined };
      if (valid.length === 0 && hasFinalizer(claim)) delete status.allocation;
      claim = await this.deps.api.updateStatus<ResourceClaim>('resourceclaims', { ...claim, status });
      this.stats.unreserved += reserved.length - valid.length;
      if (valid.length === 0 && hasFinalizer(claim) && !claim.status?.allocation) {
        this.stats.deallocated++;
        claim = await this.deps.api.update<ResourceClaim>('resourceclaims', withoutFinalizer(claim));
      }
    } else if (hasFinalizer(claim) && claim.metadata.deletionTimestamp && valid.length === 0) {
      // allocated, unused and being deleted: clear the allocation, then let the deletion finish
      if (claim.status?.allocation) {
        const status = { ...claim.status };
        delete status.allocation;
        claim = await this.deps.api.updateStatus<ResourceClaim>('resourceclaims', { ...claim, status });
        this.stats.deallocated++;
      }
      await this.deps.api.update<ResourceClaim>('resourceclaims', withoutFinalizer(claim));
      return;
    }
    if (valid.length > 0) return;
    // unreserved and generated for a pod that will not run: delete it (the GC would wait for the pod)
    const owner = owningPod(claim);
    if (!owner) return;
    const pod = this.pods.get(ns, owner.name);
    if (!pod || !(pod.metadata.uid !== owner.uid || isPodDone(pod))) return;
    if (claim.metadata.deletionTimestamp) return;
    try {
      await this.deps.api.delete('resourceclaims', ns, name);
      this.stats.deleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Is the pod a reservedFor entry names gone, replaced or done? (upstream syncClaim's three categories) */
  private async podGone(ns: string, ref: { name: string; uid: string }): Promise<boolean> {
    if (this.deletedPods.has(ref.uid)) return true;
    const pod = this.pods.get(ns, ref.name);
    if (pod) return pod.metadata.uid !== ref.uid || isPodDone(pod);
    // not in the cache (yet?): removing a pod the scheduler is binding would be bad, so ask the server
    try {
      const live = await this.deps.api.get<Pod>('pods', ns, ref.name);
      return live.metadata.uid !== ref.uid;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }
}

/**
 * The DaemonSet controller (upstream: pkg/controller/daemon, daemon_controller.go and update.go,
 * release-1.34): one pod of each DaemonSet on every node that should run it. Learns about
 * DaemonSets, pods and nodes only from informers and acts only through the ApiServer:
 *
 * - manage: for every node, NodeShouldRunDaemonPod (daemonset-util.ts) decides; a node that should
 *   run the pod and has none gets one, a node that must not keep it (NoExecute taint, selector or
 *   affinity no longer matching) loses it, failed and succeeded pods are deleted (failed ones with
 *   a per-node back-off, 1 s doubling to 15 min), extra pods beyond one per node are pruned (the
 *   oldest scheduled one is kept; with maxSurge one old and one new may coexist);
 * - new pods come from the template with the default daemon tolerations, the
 *   `controller-revision-hash` label and a required node affinity on `metadata.name` naming their
 *   node (ReplaceDaemonSetPodNodeNameNodeAffinity), so the scheduler binds them as upstream;
 *   they are created in slow-start batches with creation/deletion expectations;
 * - rolling update: without surge, old pods are deleted while the unavailable count stays within
 *   maxUnavailable (unavailable old pods first); with maxSurge, a new pod is started beside an old
 *   one on up to maxSurge nodes and the old one is deleted once the new one is available; OnDelete
 *   replaces nothing until a pod is deleted;
 * - status: desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
 *   updatedNumberScheduled, numberAvailable, numberUnavailable, observedGeneration (a node counts
 *   a pod pinned to it by affinity before the scheduler binds it, as upstream's GetTargetNodeName).
 *
 * Simplified (docs/controllers.md): no ControllerRevision objects — the revision hash is computed
 * from the template (the same hash function as the Deployment controller's pod-template-hash), so
 * a snapshot's pods are known current by their pod-template-generation label and the DaemonSet's
 * deprecated.daemonset.template.generation annotation (IsPodUpdated); that label is not written on
 * new pods; no adoption of orphan pods by
 * selector; pods bound to a deleted node are left to the pod garbage collector (podgc.ts).
 */
import { compileRequiredNodeAffinity } from '../api/node-affinity.js';
import type { DaemonSet, DaemonSetStatus, Node, Pod } from '../api/types.js';
import { podFromWorkload } from '../api/workload-pod.js';
import { isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue, runWorkers } from '../client/workqueue.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  allowsSurge,
  comparePodsByCreation,
  getTargetNodeName,
  isPodUpdated,
  templateGeneration,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
  surgeCount,
  unavailableCount,
  type ShouldRun,
} from './daemonset-util.js';
import { computeTemplateHash } from './deployment-util.js';
import { Expectations } from './expectations.js';
import {
  CONTROLLER_UID_INDEX,
  controllerOf,
  controllerRef,
  controllerUidIndex,
  isPodAvailable,
  isPodReady,
  podGracePeriod,
} from './pod-util.js';
import { BURST_REPLICAS, type ControllerDeps, slowStartBatch } from './replicaset.js';

/** failedPodsBackoff: flowcontrol.NewBackOff(1s, 15min) */
const FAILED_POD_BACKOFF_INITIAL_MS = 1000;
const FAILED_POD_BACKOFF_MAX_MS = 15 * 60_000;

/** What one sync knows of a DaemonSet: its pod shape, revision hash and per-node decisions. */
interface SyncContext {
  ds: DaemonSet;
  key: string;
  hash: string;
  nodes: Node[];
  should: Map<string, ShouldRun>;
  now: number;
}

export class DaemonSetController {
  readonly queue: WorkQueue<string>;
  private readonly dsInformer: Informer<DaemonSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly expectations: Expectations;
  private readonly backoff = new Map<string, { delayMs: number; at: number }>();
  private running?: Promise<void>;
  podsCreated = 0;
  podsDeleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'daemonset');
    this.expectations = new Expectations(deps.clock);
    this.dsInformer = deps.informers.for<DaemonSet>('daemonsets');
    this.podInformer = deps.informers.for<Pod>('pods');
    this.nodeInformer = deps.informers.for<Node>('nodes');
    try {
      this.podInformer.addIndexer(CONTROLLER_UID_INDEX, controllerUidIndex);
    } catch {
      /* shared: already added */
    }
    this.dsInformer.addEventHandler({
      onAdd: (ds) => this.queue.add(keyOf(ds)),
      onUpdate: (_o, ds) => this.queue.add(keyOf(ds)),
      onDelete: (ds) => {
        this.expectations.delete(keyOf(ds));
        this.queue.add(keyOf(ds));
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => {
        const k = this.ownerKey(pod);
        if (!k) return;
        if (pod.metadata.deletionTimestamp) this.expectations.deletionObserved(k, keyOf(pod));
        else this.expectations.creationObserved(k);
        this.queue.add(k);
      },
      onUpdate: (old, pod) => {
        const k = this.ownerKey(pod);
        const oldK = this.ownerKey(old);
        if (oldK && oldK !== k) this.queue.add(oldK);
        if (!k) return;
        if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp)
          this.expectations.deletionObserved(k, keyOf(pod));
        this.queue.add(k);
        // a pod that just became ready becomes available after minReadySeconds
        const mrs = this.dsInformer.getByKey(k)?.spec.minReadySeconds ?? 0;
        if (mrs > 0 && !isPodReady(old) && isPodReady(pod)) this.queue.addAfter(k, mrs * 1000 + 1000);
      },
      onDelete: (pod) => {
        const k = this.ownerKey(pod);
        if (!k) return;
        this.expectations.deletionObserved(k, keyOf(pod));
        this.queue.add(k);
      },
    });
    // a node's arrival, departure or change of labels/taints can change every DaemonSet's answer
    this.nodeInformer.addEventHandler({
      onAdd: () => this.enqueueAll(),
      onUpdate: (old, node) => {
        if (!sameScheduling(old, node)) this.enqueueAll();
      },
      onDelete: () => this.enqueueAll(),
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 2, (k) => this.sync(k));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  private enqueueAll(): void {
    for (const ds of this.dsInformer.list()) this.queue.add(keyOf(ds));
  }

  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'DaemonSet') return undefined;
    const ds = this.dsInformer.get(pod.metadata.namespace, ref.name);
    if (!ds || ds.metadata.uid !== ref.uid) return undefined;
    return keyOf(ds);
  }

  /** syncDaemonSet */
  async sync(key: string): Promise<void> {
    const ds = this.dsInformer.getByKey(key);
    if (!ds) {
      this.expectations.delete(key);
      return;
    }
    const sel = ds.spec.selector;
    if (!sel || (!sel.matchLabels && !sel.matchExpressions?.length)) {
      this.deps.recorder.event(
        ds,
        'Warning',
        'SelectingAll',
        'This daemon set is selecting all pods. A non-empty selector is required.',
      );
      return;
    }
    // being deleted: its pods may already be going, so status cannot be computed (as upstream)
    if (ds.metadata.deletionTimestamp) return;
    const template = podFromWorkload(ds);
    const affinity = compileRequiredNodeAffinity(template);
    const nodes = this.nodeInformer.list().sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    const should = new Map<string, ShouldRun>();
    for (const n of nodes) should.set(n.metadata.name!, nodeShouldRunDaemonPod(template, n, affinity));
    const ctx: SyncContext = {
      ds,
      key,
      hash: computeTemplateHash(ds.spec.template, ds.status?.collisionCount),
      nodes,
      should,
      now: this.deps.clock.now(),
    };
    if (!this.expectations.satisfied(key)) {
      await this.updateStatus(ctx, false);
      return;
    }
    let err: unknown;
    try {
      await this.manage(ctx, template);
      if (
        this.expectations.satisfied(key) &&
        (ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate'
      )
        await this.rollingUpdate(ctx, template);
    } catch (e) {
      err = e;
    }
    await this.updateStatus(ctx, true);
    if (err !== undefined) throw err;
  }

  /** getNodesToDaemonPods: the DaemonSet's pods by target node (terminal pods being deleted left out) */
  private nodeToDaemonPods(ds: DaemonSet): Map<string, Pod[]> {
    const out = new Map<string, Pod[]>();
    this.podInformer.forEachInIndex(CONTROLLER_UID_INDEX, ds.metadata.uid!, (p) => {
      const phase = p.status?.phase;
      if ((phase === 'Succeeded' || phase === 'Failed') && p.metadata.deletionTimestamp) return;
      const node = getTargetNodeName(p);
      if (node === undefined) return;
      let l = out.get(node);
      if (!l) out.set(node, (l = []));
      l.push(p);
    });
    return out;
  }

  /** manage: create the missing pods, delete the ones that must go */
  private async manage(ctx: SyncContext, template: Pod): Promise<void> {
    const byNode = this.nodeToDaemonPods(ctx.ds);
    const needing: string[] = [];
    const toDelete: Pod[] = [];
    for (const node of ctx.nodes) this.podsShouldBeOnNode(ctx, node, byNode, needing, toDelete);
    // getUnscheduledPodsWithoutNode: pinned to a node that no longer exists, never to be bound
    for (const [name, pods] of byNode) {
      if (ctx.should.has(name)) continue;
      for (const p of pods) if (!p.spec.nodeName && !p.metadata.deletionTimestamp) toDelete.push(p);
    }
    await this.syncNodes(ctx, template, toDelete, needing);
  }

  /** podsShouldBeOnNode */
  private podsShouldBeOnNode(
    ctx: SyncContext,
    node: Node,
    byNode: Map<string, Pod[]>,
    needing: string[],
    toDelete: Pod[],
  ): void {
    const name = node.metadata.name!;
    const { shouldRun, shouldContinueRunning } = ctx.should.get(name)!;
    const pods = byNode.get(name);
    if (shouldRun && !pods) {
      needing.push(name);
      return;
    }
    if (shouldContinueRunning) {
      const running: Pod[] = [];
      for (const p of pods ?? []) {
        if (p.metadata.deletionTimestamp) continue;
        const phase = p.status?.phase;
        if (phase === 'Failed') {
          // the controller fights a kubelet that rejects the pod: back off per node
          const bk = `${ctx.ds.metadata.uid}/${ctx.ds.status?.observedGeneration ?? 0}/${name}`;
          const b = this.backoff.get(bk);
          if (b && ctx.now - b.at < b.delayMs) {
            this.queue.addAfter(ctx.key, b.delayMs);
            continue;
          }
          const delayMs = b
            ? Math.min(b.delayMs * 2, FAILED_POD_BACKOFF_MAX_MS)
            : FAILED_POD_BACKOFF_INITIAL_MS;
          this.backoff.set(bk, { delayMs, at: ctx.now });
          this.deps.recorder.event(
            ctx.ds,
            'Warning',
            'FailedDaemonPod',
            `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to kill it`,
          );
          toDelete.push(p);
        } else if (phase === 'Succeeded') {
          this.deps.recorder.event(
            ctx.ds,
            'Normal',
            'SucceededDaemonPod',
            `Found succeeded daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to delete it`,
          );
          toDelete.push(p);
        } else running.push(p);
      }
      running.sort(comparePodsByCreation);
      if (!allowsSurge(ctx.ds)) {
        // more than one: keep the oldest
        toDelete.push(...running.slice(1));
        return;
      }
      if (running.length <= 1) {
        if (running.length === 0 && shouldRun) needing.push(name);
        return;
      }
      // surging: keep the oldest new pod and the oldest old pod; the old one goes once it is not
      // ready or the new one is available
      let oldestNew: Pod | undefined;
      let oldestOld: Pod | undefined;
      for (const p of running) {
        if (p.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] === ctx.hash) {
          if (!oldestNew) {
            oldestNew = p;
            continue;
          }
        } else if (!oldestOld) {
          oldestOld = p;
          continue;
        }
        toDelete.push(p);
      }
      if (oldestNew && oldestOld) {
        if (!isPodReady(oldestOld)) toDelete.push(oldestOld);
        else if (isPodAvailable(oldestNew, ctx.ds.spec.minReadySeconds ?? 0, ctx.now))
          toDelete.push(oldestOld);
      }
      return;
    }
    if (pods) for (const p of pods) if (!p.metadata.deletionTimestamp) toDelete.push(p);
  }

  /** syncNodes: create pods on `needing` nodes and delete `toDelete`, with expectations */
  private async syncNodes(
    ctx: SyncContext,
    template: Pod,
    toDelete: Pod[],
    needing: string[],
  ): Promise<void> {
    const createN = Math.min(needing.length, BURST_REPLICAS);
    const deletions = toDelete.slice(0, BURST_REPLICAS);
    if (createN === 0 && deletions.length === 0) return;
    const { ds, key } = ctx;
    this.expectations.expect(key, createN, deletions.map(keyOf));
    let error: unknown;
    const created = await slowStartBatch(createN, 1, async (i) => {
      const pod = this.newPod(ds, template, needing[i], ctx.hash);
      try {
        const p = await this.deps.api.create('pods', pod);
        this.podsCreated++;
        this.deps.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata.name}`);
      } catch (err) {
        this.deps.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
        throw err;
      }
    });
    // creations that failed or were skipped will never be observed
    if (created.successes < createN) this.expectations.lowerCreations(key, createN - created.successes);
    error = created.error;
    await Promise.all(
      deletions.map(async (p) => {
        try {
          await this.deps.api.delete('pods', p.metadata.namespace, p.metadata.name!, {
            gracePeriodSeconds: podGracePeriod(p),
          });
          this.podsDeleted++;
          this.deps.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        } catch (err) {
          this.expectations.deletionObserved(key, keyOf(p));
          if (!isNotFound(err)) error ??= err;
        }
      }),
    );
    if (error !== undefined) throw error;
  }

  /** CreatePodTemplate + GetPodFromTemplate + ReplaceDaemonSetPodNodeNameNodeAffinity */
  private newPod(ds: DaemonSet, template: Pod, nodeName: string, hash: string): Pod {
    const spec = structuredClone(template.spec);
    spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(spec.affinity, nodeName);
    const tm = template.metadata;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${ds.metadata.name}-`,
        namespace: ds.metadata.namespace,
        labels: { ...(tm.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
        ...(tm.annotations ? { annotations: { ...tm.annotations } } : {}),
        ...(tm.finalizers ? { finalizers: [...tm.finalizers] } : {}),
        ownerReferences: [controllerRef(ds)],
      },
      spec,
    };
  }

  /**
   * rollingUpdate (update.go): which old pods to delete, or with maxSurge which nodes get a new pod
   * beside their old one, within maxUnavailable / maxSurge of the desired count.
   */
  private async rollingUpdate(ctx: SyncContext, template: Pod): Promise<void> {
    const { ds, hash, now } = ctx;
    const mrs = ds.spec.minReadySeconds ?? 0;
    const byNode = this.nodeToDaemonPods(ds);
    // updatedDesiredNodeCounts: nodes that want a pod but have none count as present and empty
    let desired = 0;
    for (const n of ctx.nodes) {
      const name = n.metadata.name!;
      if (!ctx.should.get(name)!.shouldRun) continue;
      desired++;
      if (!byNode.has(name)) byNode.set(name, []);
    }
    const maxSurge = surgeCount(ds, desired);
    let maxUnavailable = unavailableCount(ds, desired);
    if (desired > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    const nodeNames = [...byNode.keys()].sort();
    const available = (p: Pod) => isPodAvailable(p, mrs, now);

    if (maxSurge === 0) {
      let numUnavailable = 0;
      const replacements: Pod[] = [];
      const candidates: Pod[] = [];
      for (const name of nodeNames) {
        const found = findUpdatedPodsOnNode(byNode.get(name)!, hash, templateGeneration(ctx.ds));
        if (!found) {
          numUnavailable++; // the manage loop prunes the excess first
          continue;
        }
        const { newPod, oldPod } = found;
        if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
        else if (newPod) {
          if (!available(newPod)) numUnavailable++;
        } else if (oldPod) {
          if (!available(oldPod)) {
            replacements.push(oldPod);
            numUnavailable++;
          } else if (numUnavailable < maxUnavailable) candidates.push(oldPod);
        }
      }
      const room = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      await this.syncNodes(ctx, template, [...replacements, ...candidates.slice(0, room)], []);
      return;
    }

    const toDelete: Pod[] = [];
    const shouldNotRun: Pod[] = [];
    const candidateNodes: string[] = [];
    const allowedNodes: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    for (const name of nodeNames) {
      const found = findUpdatedPodsOnNode(byNode.get(name)!, hash, templateGeneration(ctx.ds));
      if (!found) {
        numSurge++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (oldPod) {
        if (available(oldPod)) numAvailable++;
      } else if (newPod && available(newPod)) numAvailable++;
      if (!oldPod) continue; // the manage loop handles it
      const shouldRun = ctx.should.get(name)?.shouldRun ?? false;
      if (!newPod) {
        if (!available(oldPod)) {
          if (!shouldRun) toDelete.push(oldPod);
          else allowedNodes.push(name);
        } else if (!shouldRun) shouldNotRun.push(oldPod);
        else if (numSurge < maxSurge) candidateNodes.push(name);
        continue;
      }
      // already surged here: wait for the new pod, then retire the old one
      if (!available(newPod)) numSurge++;
      else toDelete.push(oldPod);
    }
    // keep availability when the constraints moved: retire pods on sunsetted nodes only as others come up
    const deletable = Math.min(numAvailable - desired, shouldNotRun.length);
    if (deletable > 0) toDelete.push(...shouldNotRun.slice(0, deletable));
    const room = Math.min(Math.max(0, maxSurge - numSurge), candidateNodes.length);
    await this.syncNodes(ctx, template, toDelete, [...allowedNodes, ...candidateNodes.slice(0, room)]);
  }

  /** updateDaemonSetStatus + storeDaemonSetStatus */
  private async updateStatus(ctx: SyncContext, updateObservedGen: boolean): Promise<void> {
    const { ds, hash, now } = ctx;
    const mrs = ds.spec.minReadySeconds ?? 0;
    const byNode = this.nodeToDaemonPods(ds);
    let desired = 0,
      current = 0,
      misscheduled = 0,
      ready = 0,
      updated = 0,
      available = 0;
    for (const n of ctx.nodes) {
      const name = n.metadata.name!;
      const pods = byNode.get(name);
      const scheduled = (pods?.length ?? 0) > 0;
      if (ctx.should.get(name)!.shouldRun) {
        desired++;
        if (!scheduled) continue;
        current++;
        const pod = [...pods!].sort(comparePodsByCreation)[0];
        if (isPodReady(pod)) {
          ready++;
          if (isPodAvailable(pod, mrs, now)) available++;
        }
        if (isPodUpdated(pod, hash, templateGeneration(ds))) updated++;
      } else if (scheduled) misscheduled++;
    }
    const next: DaemonSetStatus = {
      ...(ds.status ?? {}),
      desiredNumberScheduled: desired,
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      updatedNumberScheduled: updated,
      numberAvailable: available,
      numberUnavailable: desired - available,
    };
    if (updateObservedGen) next.observedGeneration = ds.metadata.generation;
    const s = ds.status;
    const same =
      s &&
      s.desiredNumberScheduled === desired &&
      s.currentNumberScheduled === current &&
      s.numberMisscheduled === misscheduled &&
      s.numberReady === ready &&
      (s.updatedNumberScheduled ?? 0) === updated &&
      (s.numberAvailable ?? 0) === available &&
      (s.numberUnavailable ?? 0) === desired - available &&
      (s.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0);
    if (!same) {
      try {
        await this.deps.api.updateStatus('daemonsets', { ...ds, status: next });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    // resync after minReadySeconds so availability is noticed
    if (mrs > 0 && ready !== available) this.queue.addAfter(ctx.key, mrs * 1000);
  }
}

/**
 * findUpdatedPodsOnNode: the node's one new and one old (not deleting) pod, or undefined when it has
 * more than one of either (the manage loop prunes those first).
 */
function findUpdatedPodsOnNode(
  pods: Pod[],
  hash: string,
  generation: string | undefined,
): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isPodUpdated(p, hash, generation)) {
      if (newPod) return undefined;
      newPod = p;
    } else {
      if (oldPod) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}

/** does a node update leave every DaemonSet's decision unchanged? (labels, taints, name) */
function sameScheduling(a: Node, b: Node): boolean {
  return (
    JSON.stringify(a.metadata.labels ?? {}) === JSON.stringify(b.metadata.labels ?? {}) &&
    JSON.stringify(a.spec?.taints ?? []) === JSON.stringify(b.spec?.taints ?? [])
  );
}

/**
 * The taint eviction controller (pkg/controller/tainteviction, formerly NoExecuteTaintManager):
 * for every pod bound to a node with NoExecute taints —
 *
 * - a pod that does not tolerate every NoExecute taint is deleted at once;
 * - a pod whose matching tolerations all carry tolerationSeconds is deleted after the smallest
 *   of them, counted from when this controller first saw it needing eviction (upstream's
 *   processPodOnNode: triggerTime = now + minTolerationTime, keeping an earlier scheduled time);
 * - a pod tolerating without tolerationSeconds stays;
 * - when the taints go away before the time is up, the eviction is cancelled.
 *
 * The DefaultTolerationSeconds admission plugin gives every pod not-ready and unreachable
 * NoExecute tolerations of 300 s, hence the classic "pods leave a dead node after 5 minutes".
 * Deletion uses the pod's own grace period; an event "TaintManagerEviction" /
 * "Marking for deletion Pod <ns>/<name>" is recorded.
 */
import { toleratesTaint } from '../api/taints.js';
import type { Node, Pod, Taint, Toleration } from '../api/types.js';
import { isNotFound, keyOf } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import type { TimerHandle } from '../util/clock.js';
import type { ControllerDeps } from './replicaset.js';
import { podGracePeriod, NODE_NAME_INDEX, nodeNameIndex } from './pod-util.js';

/**
 * How long a pod may stay given the node's NoExecute taints: 0 = evict now, -1 = forever,
 * otherwise milliseconds (getMinTolerationTime over the tolerations that match).
 */
export function minTolerationMs(taints: Taint[], tolerations: Toleration[] | undefined): number {
  const noExec = taints.filter((t) => t.effect === 'NoExecute');
  if (noExec.length === 0) return -1;
  const used: Toleration[] = [];
  for (const taint of noExec) {
    const m = (tolerations ?? []).filter((t) => toleratesTaint(t, taint));
    if (m.length === 0) return 0;
    used.push(...m);
  }
  let min = -1;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    const ms = Math.max(0, t.tolerationSeconds) * 1000;
    if (min < 0 || ms < min) min = ms;
  }
  return min;
}

export interface EvictionRecord {
  pod: string;
  node: string;
  atMs: number;
}

export class TaintEvictionController {
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  /** pod key → scheduled eviction */
  private readonly scheduled = new Map<string, { createdMs: number; fireMs: number; timer: TimerHandle }>();
  /** every eviction, in order (the simulation reports these) */
  readonly evictions: EvictionRecord[] = [];

  constructor(private readonly deps: ControllerDeps) {
    this.nodes = deps.informers.for<Node>('nodes');
    this.pods = deps.informers.for<Pod>('pods');
    try {
      this.pods.addIndexer(NODE_NAME_INDEX, nodeNameIndex);
    } catch {
      /* shared */
    }
  }

  run(): void {
    this.nodes.addEventHandler({
      onAdd: (n) => this.onNode(n),
      onUpdate: (o, n) => {
        if (JSON.stringify(noExec(o)) !== JSON.stringify(noExec(n))) this.onNode(n);
      },
    });
    this.pods.addEventHandler({
      onAdd: (p) => this.onPod(p),
      onUpdate: (o, p) => {
        if (
          o.spec.nodeName !== p.spec.nodeName ||
          JSON.stringify(o.spec.tolerations) !== JSON.stringify(p.spec.tolerations)
        )
          this.onPod(p);
      },
      onDelete: (p) => this.cancel(keyOf(p)),
    });
  }

  async stop(): Promise<void> {
    for (const s of this.scheduled.values()) this.deps.clock.clearTimer(s.timer);
    this.scheduled.clear();
  }

  private onNode(node: Node): void {
    for (const p of this.pods.byIndex(NODE_NAME_INDEX, node.metadata.name!)) this.process(p, node);
  }

  private onPod(pod: Pod): void {
    if (!pod.spec.nodeName) return;
    const node = this.nodes.get(undefined, pod.spec.nodeName);
    if (node) this.process(pod, node);
  }

  private process(pod: Pod, node: Node): void {
    const key = keyOf(pod);
    if (pod.metadata.deletionTimestamp) {
      this.cancel(key);
      return;
    }
    const taints = noExec(node);
    if (taints.length === 0) {
      this.cancel(key);
      return;
    }
    const min = minTolerationMs(taints, pod.spec.tolerations);
    if (min < 0) {
      this.cancel(key);
      return;
    }
    // an eviction already scheduled earlier keeps its time (createdAt + min is before now + min)
    if (this.scheduled.has(key)) return;
    const now = this.deps.clock.now();
    const created = now;
    const fireMs = now + min;
    const timer = this.deps.clock.setTimer(() => {
      this.evict(key, node.metadata.name!).catch(() => {});
    }, min);
    this.scheduled.set(key, { createdMs: created, fireMs, timer });
  }

  private cancel(key: string): void {
    const s = this.scheduled.get(key);
    if (!s) return;
    this.deps.clock.clearTimer(s.timer);
    this.scheduled.delete(key);
  }

  private async evict(key: string, nodeName: string): Promise<void> {
    this.scheduled.delete(key);
    const pod = this.pods.getByKey(key);
    if (!pod || pod.metadata.deletionTimestamp) return;
    this.deps.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    try {
      await this.deps.api.delete('pods', pod.metadata.namespace, pod.metadata.name!, {
        gracePeriodSeconds: podGracePeriod(pod),
      });
      this.evictions.push({ pod: key, node: nodeName, atMs: this.deps.clock.now() });
    } catch (err) {
      if (isNotFound(err)) return;
      // retry shortly, as the taint eviction queue does
      const timer = this.deps.clock.setTimer(() => {
        this.evict(key, nodeName).catch(() => {});
      }, 1000);
      this.scheduled.set(key, {
        createdMs: this.deps.clock.now(),
        fireMs: this.deps.clock.now() + 1000,
        timer,
      });
    }
  }
}

function noExec(n: Node): Taint[] {
  return (n.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
}

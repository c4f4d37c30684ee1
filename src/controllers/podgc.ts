/**
 * The pod garbage collector's orphan pass (upstream: pkg/controller/podgc/gc_controller.go
 * gcOrphaned, release-1.34): a pod bound to a node that no longer exists is never confirmed
 * deleted by a kubelet, so every 20 s (gcCheckPeriod) the collector looks for pods whose
 * spec.nodeName is not in its node cache; once a node has been missing for the 40 s quarantine
 * and a direct GET confirms it is gone, its pods are marked Failed with a DisruptionTarget
 * condition (reason DeletionByPodGC) and force-deleted (grace 0). This is what removes a
 * DaemonSet's pod — or any pod — from a deleted node.
 *
 * Simplified: only gcOrphaned; the terminated-pod threshold (12,500), out-of-service node and
 * unscheduled-terminating passes are not modelled (the ApiServer deletes unbound pods at once).
 */
import type { Node, Pod } from '../api/types.js';
import { rfc3339 } from '../api/time.js';
import { isNotFound } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import type { TimerHandle } from '../util/clock.js';
import type { ControllerDeps } from './replicaset.js';

/** gcCheckPeriod */
export const GC_CHECK_PERIOD_MS = 20_000;
/** quarantineTime: how long a node must be missing before its pods are collected */
export const QUARANTINE_MS = 40_000;

export class PodGCController {
  private readonly pods: Informer<Pod>;
  private readonly nodes: Informer<Node>;
  /** node name → when the collector first saw pods bound to it while it was absent */
  private readonly missingSince = new Map<string, number>();
  private timer?: TimerHandle;
  private stopped = false;
  deleted = 0;

  constructor(private readonly deps: ControllerDeps) {
    this.pods = deps.informers.for<Pod>('pods');
    this.nodes = deps.informers.for<Node>('nodes');
  }

  run(): void {
    // wait.Until: the next pass starts a period after the previous one finished
    const pass = () => {
      this.timer = undefined;
      this.gcOrphaned()
        .catch(() => {})
        .finally(() => {
          if (!this.stopped) this.timer = this.deps.clock.setTimer(pass, GC_CHECK_PERIOD_MS);
        });
    };
    this.timer = this.deps.clock.setTimer(pass, GC_CHECK_PERIOD_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
  }

  /** gcOrphaned: delete the pods of nodes missing for the quarantine time */
  private async gcOrphaned(): Promise<void> {
    const now = this.deps.clock.now();
    const byNode = new Map<string, Pod[]>();
    for (const p of this.pods.list()) {
      const n = p.spec.nodeName;
      if (!n || this.nodes.get(undefined, n)) continue;
      let l = byNode.get(n);
      if (!l) byNode.set(n, (l = []));
      l.push(p);
    }
    for (const n of this.missingSince.keys()) if (!byNode.has(n)) this.missingSince.delete(n);
    for (const [node, pods] of byNode) {
      const since = this.missingSince.get(node);
      if (since === undefined) {
        this.missingSince.set(node, now);
        continue;
      }
      if (now - since < QUARANTINE_MS) continue;
      // checkIfNodeExists: the cache may lag, the ApiServer decides
      try {
        await this.deps.api.get('nodes', undefined, node);
        this.missingSince.delete(node);
        continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      for (const p of pods) await this.markFailedAndDelete(p);
    }
  }

  /** markFailedAndDeletePodWithCondition */
  private async markFailedAndDelete(pod: Pod): Promise<void> {
    const phase = pod.status?.phase;
    try {
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
        conditions.push({
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'DeletionByPodGC',
          message: 'PodGC: node no longer exists',
          lastTransitionTime: rfc3339(this.deps.clock.now()),
        });
        // unconditional (no resourceVersion): the kubelet that would race it is gone with the node
        await this.deps.api.updateStatus('pods', {
          ...pod,
          metadata: { ...pod.metadata, resourceVersion: undefined },
          status: { ...pod.status, phase: 'Failed', conditions },
        });
      }
      await this.deps.api.delete('pods', pod.metadata.namespace, pod.metadata.name!, {
        gracePeriodSeconds: 0,
      });
      this.deleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

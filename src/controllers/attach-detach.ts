/**
 * The attach/detach model (upstream pkg/controller/volume/attachdetach: the desired state of the
 * world from the pods on each node, reconciled against VolumeAttachments; the CSI external-attacher
 * marks them attached). A node's attached CSI volumes follow its pods:
 *
 * - desired: for every pod bound to a node and not finished, each claim bound to a CSI volume whose
 *   CSIDriver requires attaching (`spec.attachRequired`, true when the CSIDriver is absent) is
 *   attached to the node;
 * - a missing attachment is created as `csi-<sha256(volumeHandle + driver + node)>` with
 *   `status.attached: true` (the external-attacher's answer, without its latency);
 * - an attachment no pod on its node needs any more is deleted (detach). Upstream waits for the
 *   kubelet to unmount first, and for a node that stopped reporting, for the 6-minute
 *   maxWaitForUnmountDuration; kubesim detaches as soon as the pod is gone or finished.
 *
 * NodeVolumeLimits counts the attachments alongside the pods' volumes (each volume once), so an
 * attachment that outlives its pod still takes a slot until it is detached.
 *
 * A node with no pod using a claim and no VolumeAttachment has nothing to reconcile (its desired
 * state is empty and there is nothing to detach), so events of its pods do not queue it
 * (`skipIdleNodes`, the default; test/controllers/attach-detach-idle.test.ts compares both ways):
 * whatever could give it work — a pod with a claim bound to it, an attachment naming it — queues it
 * itself. Upstream's desired-state populator likewise only looks at pods with volumes.
 */
import { NODE_NAME_INDEX, nodeNameIndex } from './pod-util.js';
import { createHash } from 'node:crypto';
import type {
  CSIDriver,
  PersistentVolume,
  PersistentVolumeClaim,
  VolumeAttachment,
} from '../api/storage-types.js';
import type { Pod } from '../api/types.js';
import { isAlreadyExists, isNotFound } from '../client/api.js';
import type { Informer } from '../client/informer.js';
import { runWorkers, WorkQueue } from '../client/workqueue.js';
import type { ControllerDeps } from './replicaset.js';

/** upstream csi attacher getAttachmentName: "csi-" + hex sha256 of handle, driver and node */
export function attachmentName(volumeHandle: string, driver: string, node: string): string {
  return `csi-${createHash('sha256').update(`${volumeHandle}${driver}${node}`).digest('hex')}`;
}

/** the pod informer's index by spec.nodeName (shared with the node lifecycle and taint eviction controllers) */

export class AttachDetachController {
  private readonly queue: WorkQueue<string>;
  private readonly pods: Informer<Pod>;
  private readonly claims: Informer<PersistentVolumeClaim>;
  private readonly volumes: Informer<PersistentVolume>;
  private readonly drivers: Informer<CSIDriver>;
  private readonly attachments: Informer<VolumeAttachment>;
  private running?: Promise<void>;
  /** node → its pods that use a claim (any phase) */
  private readonly claimPods = new Map<string, number>();
  /** node → the VolumeAttachments naming it */
  private readonly attachmentsOn = new Map<string, number>();
  attached = 0;
  detached = 0;

  /** @param skipIdleNodes pod events do not queue a node with no claim-using pod and no attachment */
  constructor(
    private readonly deps: ControllerDeps,
    private readonly skipIdleNodes = true,
  ) {
    // one key per node: its attachments are reconciled together
    this.queue = new WorkQueue<string>(deps.clock, undefined, 'attachdetach');
    this.pods = deps.informers.for<Pod>('pods');
    try {
      this.pods.addIndexer(NODE_NAME_INDEX, nodeNameIndex);
    } catch {
      /* shared: the node lifecycle or taint eviction controller filed pods by node first */
    }
    this.claims = deps.informers.for<PersistentVolumeClaim>('persistentvolumeclaims');
    this.volumes = deps.informers.for<PersistentVolume>('persistentvolumes');
    this.drivers = deps.informers.for<CSIDriver>('csidrivers');
    this.attachments = deps.informers.for<VolumeAttachment>('volumeattachments');
    const node = (n: string | undefined) => {
      if (n && (!this.skipIdleNodes || this.claimPods.has(n) || this.attachmentsOn.has(n))) this.queue.add(n);
    };
    const claimPod = (p: Pod, d: number) => {
      if (p.spec.nodeName && usesAnyClaim(p)) bump(this.claimPods, p.spec.nodeName, d);
    };
    this.pods.addEventHandler({
      onAdd: (p) => {
        claimPod(p, 1);
        node(p.spec.nodeName);
      },
      onUpdate: (o, p) => {
        claimPod(o, -1);
        claimPod(p, 1);
        node(o.spec.nodeName);
        node(p.spec.nodeName);
      },
      onDelete: (p) => {
        claimPod(p, -1);
        node(p.spec.nodeName);
      },
    });
    const everyNodeOfClaim = (c: PersistentVolumeClaim) => {
      for (const p of this.pods.list(c.metadata.namespace))
        if (p.spec.nodeName && usesClaim(p, c.metadata.name ?? '')) node(p.spec.nodeName);
    };
    this.claims.addEventHandler({ onAdd: everyNodeOfClaim, onUpdate: (_o, c) => everyNodeOfClaim(c) });
    this.attachments.addEventHandler({
      onAdd: (a) => {
        bump(this.attachmentsOn, a.spec.nodeName, 1);
        node(a.spec.nodeName);
      },
      onDelete: (a) => {
        bump(this.attachmentsOn, a.spec.nodeName, -1);
        node(a.spec.nodeName);
      },
    });
  }

  run(): void {
    this.running = runWorkers(this.queue, this.deps.workers ?? 5, (n) => this.sync(n));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }

  /** the desired attachments of a node: name → the attachment to create */
  private desired(node: string): Map<string, VolumeAttachment> {
    const out = new Map<string, VolumeAttachment>();
    // the node's pods through the index (upstream's desired state of the world is kept per node too):
    // walking every pod of the cluster per node sync grew with nodes × pods
    for (const p of this.pods.byIndex(NODE_NAME_INDEX, node)) {
      const volumes = p.spec.volumes as { persistentVolumeClaim?: { claimName: string } }[] | undefined;
      if (!volumes?.length || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      const ns = p.metadata.namespace ?? 'default';
      for (const v of volumes) {
        const claim = v.persistentVolumeClaim && this.claims.get(ns, v.persistentVolumeClaim.claimName);
        const pv = claim?.spec.volumeName ? this.volumes.get(undefined, claim.spec.volumeName) : undefined;
        const csi = pv?.spec.csi;
        if (!pv || !csi) continue;
        if (this.drivers.get(undefined, csi.driver)?.spec?.attachRequired === false) continue;
        const name = attachmentName(csi.volumeHandle ?? '', csi.driver, node);
        out.set(name, {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'VolumeAttachment',
          metadata: { name },
          spec: { attacher: csi.driver, nodeName: node, source: { persistentVolumeName: pv.metadata.name } },
        });
      }
    }
    return out;
  }

  private async sync(node: string): Promise<void> {
    const want = this.desired(node);
    for (const va of this.attachments.list()) {
      if (va.spec.nodeName !== node || want.has(va.metadata.name ?? '')) continue;
      try {
        await this.deps.api.delete('volumeattachments', undefined, va.metadata.name!);
        this.detached++;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    for (const [name, va] of want) {
      if (this.attachments.get(undefined, name)) continue;
      try {
        const made = await this.deps.api.create('volumeattachments', va);
        await this.deps.api.updateStatus('volumeattachments', { ...made, status: { attached: true } });
        this.attached++;
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
  }
}

/** count `d` more for key k (dropped at 0) */
function bump(m: Map<string, number>, k: string | undefined, d: number): void {
  if (!k) return;
  const v = (m.get(k) ?? 0) + d;
  if (v) m.set(k, v);
  else m.delete(k);
}

function usesAnyClaim(p: Pod): boolean {
  return ((p.spec.volumes as { persistentVolumeClaim?: unknown }[] | undefined) ?? []).some(
    (v) => !!v.persistentVolumeClaim,
  );
}

function usesClaim(p: Pod, claim: string): boolean {
  return ((p.spec.volumes as { persistentVolumeClaim?: { claimName: string } }[] | undefined) ?? []).some(
    (v) => v.persistentVolumeClaim?.claimName === claim,
  );
}

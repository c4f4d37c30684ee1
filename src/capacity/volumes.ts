/**
 * The claims a planned pod will have when it is created, for the volume plugins: the claims of a
 * StatefulSet's volumeClaimTemplates (`<template>-<set>-<ordinal>`, what the StatefulSet controller
 * creates before the pod) and of a pod's generic ephemeral volumes (`<pod>-<volume>`, what the
 * ephemeral volume controller creates), each added unbound when the snapshot does not hold it. A
 * claim without a class gets the default StorageClass, as the DefaultStorageClass admission does.
 * Each planned replica thus asks for its own volume: WaitForFirstConsumer claims are provisioned
 * where the scheduler puts the pod, and count against the node's CSI attach limit.
 */
import { parseQuantity } from '../api/quantity.js';
import { capacityAfter, capacityFor, claimClass } from '../api/storage.js';
import type { PersistentVolumeClaim, StorageObjects } from '../api/storage-types.js';
import type { KubeObject, Pod, StatefulSet } from '../api/types.js';
import { claimName } from '../controllers/statefulset-util.js';
import type { ClusterFile } from '../scheduler/framework/cluster-file.js';
import type { CycleState } from '../scheduler/framework/cycle-state.js';
import { dynamicProvisionsOf } from '../scheduler/plugins/volume-binding.js';
import type { SchedulerCore } from '../scheduler/scheduler.js';

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The snapshot's storage objects, with list copies the planner may add claims to. */
export function storageOf(cluster: ClusterFile): StorageObjects {
  const s = cluster.storage ?? {};
  return {
    persistentVolumes: [...(s.persistentVolumes ?? [])],
    persistentVolumeClaims: [...(s.persistentVolumeClaims ?? [])],
    storageClasses: [...(s.storageClasses ?? [])],
    csiNodes: [...(s.csiNodes ?? [])],
    csiDrivers: [...(s.csiDrivers ?? [])],
    volumeAttachments: [...(s.volumeAttachments ?? [])],
    csiStorageCapacities: [...(s.csiStorageCapacities ?? [])],
  };
}

interface TemplateVolume {
  name?: string;
  persistentVolumeClaim?: { claimName: string };
  ephemeral?: {
    volumeClaimTemplate?: { metadata?: KubeObject['metadata']; spec?: PersistentVolumeClaim['spec'] };
  };
}

/** Adds the claims `pod` will have that the core's storage does not hold yet. */
export function ensureClaims(core: SchedulerCore, pod: Pod): void {
  const volumes = (pod.spec.volumes as TemplateVolume[] | undefined) ?? [];
  if (volumes.length === 0) return;
  const storage = (core.objects.storage ??= {});
  const claims = (storage.persistentVolumeClaims ??= []);
  const ns = pod.metadata.namespace ?? 'default';
  const has = (name: string) =>
    claims.some((c) => c.metadata.name === name && (c.metadata.namespace ?? 'default') === ns);
  const defaultClass = (storage.storageClasses ?? []).find(
    (c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true',
  )?.metadata.name;
  const add = (
    name: string,
    meta: KubeObject['metadata'] | undefined,
    spec: PersistentVolumeClaim['spec'] | undefined,
    owner?: KubeObject,
  ) => {
    const s = structuredClone(spec ?? {});
    if (s.storageClassName === undefined && defaultClass !== undefined) s.storageClassName = defaultClass;
    claims.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        ...(meta ?? {}),
        name,
        namespace: ns,
        uid: `planned-claim-${ns}-${name}`,
        ...(owner
          ? {
              ownerReferences: [
                {
                  apiVersion: 'v1',
                  kind: owner.kind,
                  name: owner.metadata.name ?? '',
                  uid: owner.metadata.uid ?? '',
                  controller: true,
                },
              ],
            }
          : {}),
      },
      spec: s,
    });
  };
  const setRef = pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'StatefulSet');
  const set = setRef
    ? ((core.objects.others ?? []) as unknown as StatefulSet[]).find(
        (o) =>
          o.kind === 'StatefulSet' &&
          o.metadata.name === setRef.name &&
          (o.metadata.namespace ?? 'default') === ns,
      )
    : undefined;
  for (const v of volumes) {
    if (v.ephemeral) {
      const name = `${pod.metadata.name ?? ''}-${v.name ?? ''}`;
      if (!has(name))
        add(name, v.ephemeral.volumeClaimTemplate?.metadata, v.ephemeral.volumeClaimTemplate?.spec, pod);
      continue;
    }
    const claim = v.persistentVolumeClaim?.claimName;
    if (!claim || has(claim) || !set) continue;
    const ordinal = Number((pod.metadata.name ?? '').slice((set.metadata.name ?? '').length + 1));
    const t = (set.spec.volumeClaimTemplates ?? []).find(
      (t) => claimName(set, t.metadata?.name ?? '', ordinal) === claim,
    );
    if (t)
      add(
        claim,
        { labels: { ...(t.metadata?.labels ?? {}), ...(set.spec.selector?.matchLabels ?? {}) } },
        t.spec as PersistentVolumeClaim['spec'],
      );
  }
}

/**
 * The storage a placed pod's provisioned claims use up: for a CSI driver that publishes its
 * capacity, each claim VolumeBinding chose to provision on the node takes its request from the
 * class's CSIStorageCapacity that reaches the node (what the driver reports after creating the
 * volume), so that the next replicas see what is left.
 */
export function takeProvisionedCapacity(core: SchedulerCore, state: CycleState, nodeName: string): void {
  const storage = core.objects.storage;
  const list = storage?.csiStorageCapacities;
  if (!list || list.length === 0) return;
  const labels = core.snapshot.get(nodeName)?.node.metadata.labels ?? {};
  for (const pvc of dynamicProvisionsOf(state, nodeName)) {
    const request = pvc.spec.resources?.requests?.storage;
    const sc = storage.storageClasses?.find((c) => c.metadata.name === claimClass(pvc));
    if (request === undefined || !sc) continue;
    if (
      !storage.csiDrivers?.some((d) => d.metadata.name === sc.provisioner && d.spec?.storageCapacity === true)
    )
      continue;
    const size = parseQuantity(request);
    const c = capacityFor(list, sc.metadata.name ?? '', size, labels);
    const next = c && capacityAfter(c, size.neg());
    if (next) list[list.indexOf(c)] = next;
  }
}

/** the volume plugins' FitError reasons (constant upstream texts), with the plugin that gives each */
const VOLUME_REASONS: Readonly<Record<string, string>> = {
  'node(s) exceed max volume count': 'NodeVolumeLimits (CSI attach limits)',
  "node(s) didn't match PersistentVolume's node affinity": "VolumeBinding (the bound volume's node affinity)",
  "node(s) didn't find available persistent volumes to bind":
    'VolumeBinding (no volume to bind or provision)',
  'node(s) did not have enough free storage': 'VolumeBinding (CSI storage capacity)',
  'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)':
    'VolumeBinding (missing volume)',
  'node(s) had no available volume zone': "VolumeZone (the bound volume's zone)",
  'node(s) had no available disk': 'VolumeRestrictions (disk conflict)',
  'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode':
    'VolumeRestrictions (ReadWriteOncePod)',
};

/**
 * What volumes contribute to a FitError: `n <reason> — <plugin>` for each volume reason of the
 * histogram, or the PreFilter message when a claim stops every node; nothing when volumes play no part.
 */
export function volumeStop(
  reason: string,
  reasons: Record<string, number> | undefined,
): { volumeStop?: string[] } {
  const out: string[] = [];
  for (const [r, n] of Object.entries(reasons ?? {})) {
    const plugin = VOLUME_REASONS[r];
    if (plugin) out.push(`${n} ${r} — ${plugin}`);
  }
  if (out.length === 0 && /PersistentVolumeClaim|persistentvolumeclaim/.test(reason)) out.push(reason);
  return out.length ? { volumeStop: out } : {};
}

/**
 * Loads a cluster snapshot for offline scheduling (`kubectl get nodes,pods,services,replicasets,
 * namespaces -A -o yaml` output, or any manifests): Nodes, bound Pods, and the objects the
 * plugins read (Services/ReplicaSets/StatefulSets for PodTopologySpread's default constraints,
 * Namespaces for namespaceSelector, PVs/PVCs/StorageClasses/CSINodes/CSIDrivers/VolumeAttachments for
 * the volume plugins). Errors name the file, line and object.
 */
import { BUILTIN_KINDS } from '../../api/kinds.js';
import { loadValidManifests } from '../../api/manifest-check.js';
import type { LoadedObject } from '../../api/manifest.js';
import { LIMITS } from '../../util/limits.js';
import { nodeAllocatable, podRequests, ResourceParseError } from '../engine/resources.js';
import type { KubeObject, Namespace, Node, Pod, ReplicaSet, Service } from '../../api/types.js';
import type { StorageObjects } from '../../api/storage-types.js';
import { resourceObjectToV1 } from '../../api/resource-convert.js';
import type { ResourceObjects } from '../../api/resource-types.js';

export interface ClusterFile {
  /** where each loaded object came from (for errors that name file and line) */
  sources: Map<object, LoadedObject['source']>;
  nodes: Node[];
  /** pods with spec.nodeName (running or assumed) */
  boundPods: Pod[];
  /** pods without spec.nodeName, in file order */
  pendingPods: Pod[];
  services: Service[];
  replicaSets: ReplicaSet[];
  /** StatefulSets / ReplicationControllers (their spec.selector) */
  others: KubeObject[];
  namespaces: Namespace[];
  /** what the volume plugins read (absent: none) */
  storage?: StorageObjects;
  /** what the DynamicResources plugin reads (absent: none) */
  resources?: ResourceObjects;
  /** objects of the kinds a snapshot is not read for, counted by kind (for one warning line) */
  unused?: Map<string, number>;
}

/** The kinds a snapshot is read for ({@link sortClusterObjects} ignores every other kind). */
export const SNAPSHOT_KINDS: readonly string[] = [
  'Node',
  'Pod',
  'Service',
  'ReplicaSet',
  'StatefulSet',
  'ReplicationController',
  'Namespace',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'StorageClass',
  'CSINode',
  'CSIDriver',
  'VolumeAttachment',
  'CSIStorageCapacity',
  'DeviceClass',
  'ResourceClaim',
  'ResourceClaimTemplate',
  'ResourceSlice',
];

/** snapshot kind → its list in {@link StorageObjects} */
const STORAGE_LISTS: Readonly<Record<string, keyof StorageObjects>> = {
  PersistentVolume: 'persistentVolumes',
  PersistentVolumeClaim: 'persistentVolumeClaims',
  StorageClass: 'storageClasses',
  CSINode: 'csiNodes',
  CSIDriver: 'csiDrivers',
  VolumeAttachment: 'volumeAttachments',
  CSIStorageCapacity: 'csiStorageCapacities',
};

/** snapshot kind → its list in {@link ResourceObjects} */
const RESOURCE_LISTS: Readonly<Record<string, Exclude<keyof ResourceObjects, 'revision'>>> = {
  DeviceClass: 'deviceClasses',
  ResourceClaim: 'resourceClaims',
  ResourceClaimTemplate: 'resourceClaimTemplates',
  ResourceSlice: 'resourceSlices',
};

/** The kubectl command that captures every kind in {@link SNAPSHOT_KINDS} and PriorityClasses, as the README shows it. */
export function snapshotCommand(file = 'snapshot.yaml'): string {
  const resources = SNAPSHOT_KINDS.map((k) => BUILTIN_KINDS.find((r) => r.kind === k)!.resource);
  // PriorityClasses are read beside the scheduler's view (plan's pending pods, simulate and serve
  // --cluster): without them a pod's class is named in a warning and its stored priority stands
  resources.splice(resources.indexOf('namespaces') + 1, 0, 'priorityclasses');
  return `kubectl get ${resources.join(',')} -A -o yaml > ${file}`;
}

/** An input error naming where it is (file:line: Kind "name": field: message). */
export class ClusterFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterFileError';
  }
}

function where(o: LoadedObject): string {
  const m = o.object.metadata ?? {};
  return `${o.source.file}:${o.source.line}: ${o.object.kind ?? 'object'} "${m.namespace ? m.namespace + '/' : ''}${m.name ?? '?'}"`;
}

/** The checks a snapshot object passes before the scheduler reads it. @throws ClusterFileError */
export function checkClusterObject(o: LoadedObject): void {
  const obj = o.object as unknown as Record<string, unknown>;
  if (!obj.metadata || typeof (obj.metadata as { name?: unknown }).name !== 'string')
    throw new ClusterFileError(`${where(o)}: metadata.name: Required value`);
  if (o.object.kind === 'Pod') {
    const spec = obj.spec as { containers?: unknown } | undefined;
    if (!spec || !Array.isArray(spec.containers))
      throw new ClusterFileError(`${where(o)}: spec.containers: Required value`);
  }
  // quantities the apiserver accepts but the NodeTable cannot hold (beyond 2^53 in their unit) are
  // an input error here, where the file and line are known, not deep in a plan
  try {
    if (o.object.kind === 'Node') nodeAllocatable(o.object as Node);
    else if (o.object.kind === 'Pod') podRequests(o.object as Pod);
  } catch (e) {
    if (e instanceof ResourceParseError) throw new ClusterFileError(`${where(o)}: ${e.message}`);
    throw e;
  }
}

/** Sorts loaded objects into a {@link ClusterFile}; unknown kinds are ignored. */
export function sortClusterObjects(objs: LoadedObject[]): ClusterFile {
  const out: ClusterFile = {
    sources: new Map(),
    nodes: [],
    boundPods: [],
    pendingPods: [],
    services: [],
    replicaSets: [],
    others: [],
    namespaces: [],
    storage: {},
    resources: {},
    unused: new Map(),
  };
  for (const o of objs) {
    checkClusterObject(o);
    const obj = o.object;
    out.sources.set(obj, o.source);
    switch (obj.kind) {
      case 'Node':
        out.nodes.push(obj as Node);
        break;
      case 'Pod': {
        const p = obj as Pod;
        p.metadata.namespace ??= 'default';
        (p.spec.nodeName ? out.boundPods : out.pendingPods).push(p);
        break;
      }
      case 'Service':
        out.services.push(obj as Service);
        break;
      case 'ReplicaSet':
        out.replicaSets.push(obj as ReplicaSet);
        break;
      case 'StatefulSet':
      case 'ReplicationController':
        out.others.push(obj);
        break;
      case 'Namespace':
        out.namespaces.push(obj as Namespace);
        break;
      case 'PersistentVolumeClaim':
        obj.metadata.namespace ??= 'default';
        ((out.storage![STORAGE_LISTS[obj.kind]!] ??= []) as KubeObject[]).push(obj);
        break;
      case 'PersistentVolume':
      case 'StorageClass':
      case 'CSINode':
      case 'CSIDriver':
      case 'VolumeAttachment':
      case 'CSIStorageCapacity':
        ((out.storage![STORAGE_LISTS[obj.kind]!] ??= []) as KubeObject[]).push(obj);
        break;
      case 'ResourceClaim':
      case 'ResourceClaimTemplate':
      case 'DeviceClass':
      case 'ResourceSlice': {
        if (obj.kind === 'ResourceClaim' || obj.kind === 'ResourceClaimTemplate')
          obj.metadata.namespace ??= 'default';
        // the beta versions in v1's shape, v1's defaults (count 1), as the apiserver stores them
        resourceObjectToV1(obj as unknown as Record<string, unknown>);
        const lists = out.resources as Record<string, KubeObject[] | undefined>;
        (lists[RESOURCE_LISTS[obj.kind]!] ??= []).push(obj);
        break;
      }
      default: {
        const kind = String(obj.kind ?? '(no kind)');
        out.unused!.set(kind, (out.unused!.get(kind) ?? 0) + 1);
        break;
      }
    }
  }
  checkClusterSize(out);
  return out;
}

/** A snapshot within LIMITS (nodes, pods). @throws ClusterFileError */
export function checkClusterSize(c: ClusterFile): void {
  const pods = c.boundPods.length + c.pendingPods.length;
  if (c.nodes.length > LIMITS.nodes)
    throw new ClusterFileError(
      `${c.nodes.length} Nodes is above the limit of ${LIMITS.nodes} (see "Limits" in the README)`,
    );
  if (pods > LIMITS.pods)
    throw new ClusterFileError(
      `${pods} Pods is above the limit of ${LIMITS.pods} (see "Limits" in the README)`,
    );
}

/**
 * Loads snapshot files through the one validating loader (api/manifest-check.ts): an object the
 * apiserver would reject is an error naming file, line, object and field.
 */
export async function loadClusterFiles(paths: string[]): Promise<ClusterFile> {
  return sortClusterObjects(await loadValidManifests(paths, { recursive: false }));
}

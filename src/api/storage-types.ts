/**
 * Storage kinds with Kubernetes' field names (core/v1 PersistentVolume, PersistentVolumeClaim;
 * storage.k8s.io/v1 StorageClass, CSINode, CSIDriver, VolumeAttachment), as far as scheduling,
 * binding and attach limits read them. Other fields round-trip unchanged.
 */
import type { KubeObject, NodeSelectorTerm, ResourceList } from './types.js';

export type PersistentVolumeAccessMode =
  | 'ReadWriteOnce'
  | 'ReadOnlyMany'
  | 'ReadWriteMany'
  | 'ReadWriteOncePod';

/** The in-tree and CSI sources kubesim reads (attach limits, migration, disk conflicts). */
export interface VolumeSources {
  csi?: { driver: string; volumeHandle?: string; readOnly?: boolean };
  awsElasticBlockStore?: { volumeID: string; readOnly?: boolean };
  gcePersistentDisk?: { pdName: string; readOnly?: boolean };
  azureDisk?: { diskName?: string; diskURI: string; readOnly?: boolean };
  cinder?: { volumeID: string; readOnly?: boolean };
  rbd?: { monitors?: string[]; pool?: string; image: string; readOnly?: boolean };
  iscsi?: { iqn: string; targetPortal?: string; readOnly?: boolean };
  hostPath?: { path: string };
  local?: { path: string };
  [source: string]: unknown;
}

export interface PersistentVolumeSpec extends VolumeSources {
  capacity?: ResourceList;
  accessModes?: PersistentVolumeAccessMode[];
  claimRef?: { namespace?: string; name?: string; uid?: string; kind?: string; apiVersion?: string };
  persistentVolumeReclaimPolicy?: 'Retain' | 'Delete' | 'Recycle';
  storageClassName?: string;
  volumeMode?: 'Filesystem' | 'Block';
  nodeAffinity?: { required?: { nodeSelectorTerms: NodeSelectorTerm[] } };
  [field: string]: unknown;
}

export interface PersistentVolume extends KubeObject {
  kind: 'PersistentVolume';
  spec: PersistentVolumeSpec;
  status?: { phase?: 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed'; [f: string]: unknown };
}

export interface PersistentVolumeClaimSpec {
  accessModes?: PersistentVolumeAccessMode[];
  selector?: import('./types.js').LabelSelector;
  resources?: { requests?: ResourceList; limits?: ResourceList };
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: 'Filesystem' | 'Block';
  [field: string]: unknown;
}

export interface PersistentVolumeClaim extends KubeObject {
  kind: 'PersistentVolumeClaim';
  spec: PersistentVolumeClaimSpec;
  status?: {
    phase?: 'Pending' | 'Bound' | 'Lost';
    accessModes?: PersistentVolumeAccessMode[];
    capacity?: ResourceList;
    [f: string]: unknown;
  };
}

/** storage.k8s.io/v1 TopologySelectorTerm */
export interface TopologySelectorTerm {
  matchLabelExpressions?: { key: string; values: string[] }[];
}

export interface StorageClass extends KubeObject {
  kind: 'StorageClass';
  provisioner: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: 'Retain' | 'Delete';
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
  allowedTopologies?: TopologySelectorTerm[];
  allowVolumeExpansion?: boolean;
}

export interface CSINodeDriver {
  name: string;
  nodeID?: string;
  topologyKeys?: string[];
  allocatable?: { count?: number };
}

export interface CSINode extends KubeObject {
  kind: 'CSINode';
  spec: { drivers: CSINodeDriver[] };
}

export interface CSIDriver extends KubeObject {
  kind: 'CSIDriver';
  spec?: { attachRequired?: boolean; storageCapacity?: boolean; [f: string]: unknown };
}

export interface VolumeAttachment extends KubeObject {
  kind: 'VolumeAttachment';
  spec: {
    attacher: string;
    nodeName: string;
    source: { persistentVolumeName?: string; inlineVolumeSpec?: PersistentVolumeSpec };
  };
  status?: { attached?: boolean; [f: string]: unknown };
}

/**
 * storage.k8s.io/v1 CSIStorageCapacity: the capacity a CSI driver reports for one storage class in
 * one topology segment (nodeTopology: the nodes that can reach it). Published by the driver's
 * external-provisioner; read by the scheduler's VolumeBinding for WaitForFirstConsumer claims.
 */
export interface CSIStorageCapacity extends KubeObject {
  kind: 'CSIStorageCapacity';
  storageClassName: string;
  nodeTopology?: import('./types.js').LabelSelector;
  capacity?: string | number;
  maximumVolumeSize?: string | number;
}

/** The storage objects the scheduler and the PV controller read (arrays, any order). */
export interface StorageObjects {
  persistentVolumes?: PersistentVolume[];
  persistentVolumeClaims?: PersistentVolumeClaim[];
  storageClasses?: StorageClass[];
  csiNodes?: CSINode[];
  csiDrivers?: CSIDriver[];
  volumeAttachments?: VolumeAttachment[];
  csiStorageCapacities?: CSIStorageCapacity[];
}

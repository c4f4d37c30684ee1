/**
 * The storage rules the scheduler's volume plugins and the PV controller share, one home each:
 *
 * - claim and volume classes, "bound" and access modes: component-helpers/storage/volume
 *   (GetPersistentVolumeClaimClass, GetPersistentVolumeClass, pv_helpers.go CheckAccessModes,
 *   IsVolumeBoundToClaim, CheckVolumeModeMismatches) and the scheduler binder's isPVCFullyBound;
 * - a PV's node affinity: component-helpers/storage/volume CheckNodeAffinity;
 * - the smallest available volume that fits a claim: pv_helpers.go FindMatchingVolume;
 * - a StorageClass's allowedTopologies: v1helper MatchTopologySelectorTerms;
 * - zone label values: cloud-provider volume/helpers LabelZonesToSet;
 * - in-tree volumes counted as their CSI driver: csi-translation-lib (the plugins migrated in v1.34).
 */
import { labelSelectorAsSelector } from './label-selector.js';
import { nodeSelectorTermsMatch } from './node-affinity.js';
import { parseQuantity, type Quantity } from './quantity.js';
import type {
  CSINode,
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeClaim,
  PersistentVolumeSpec,
  TopologySelectorTerm,
  VolumeSources,
} from './storage-types.js';
import type { Labels, Node } from './types.js';

/** upstream volume.AnnBindCompleted: set by the PV controller once a claim's binding is done */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
/** upstream volume.AnnSelectedNode: the node the scheduler chose for a WaitForFirstConsumer claim */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
/** upstream volume.AnnBoundByController */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
/** upstream volume.AnnDynamicallyProvisioned */
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
/** upstream volume.NotSupportedProvisioner: a class that never provisions */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';
/** upstream v1.MigratedPluginsAnnotationKey on CSINode */
export const MIGRATED_PLUGINS_ANNOTATION = 'storage.alpha.kubernetes.io/migrated-plugins';
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName, else "" */
export function claimClass(pvc: PersistentVolumeClaim): string {
  const a = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (a !== undefined) return a;
  return pvc.spec.storageClassName ?? '';
}

/** GetPersistentVolumeClass */
export function volumeClass(pv: PersistentVolume): string {
  const a = pv.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (a !== undefined) return a;
  return pv.spec.storageClassName ?? '';
}

/** the binder's isPVCFullyBound: volumeName set and the bind-completed annotation present */
export function claimFullyBound(pvc: PersistentVolumeClaim): boolean {
  return !!pvc.spec.volumeName && pvc.metadata.annotations?.[ANN_BIND_COMPLETED] !== undefined;
}

/** `namespace/name` of a claim (namespace defaulted) */
export function claimKey(namespace: string | undefined, name: string): string {
  return `${namespace || 'default'}/${name}`;
}

/** the storage a claim requests (0 when none) */
export function claimRequest(pvc: PersistentVolumeClaim): Quantity {
  return parseQuantity(pvc.spec.resources?.requests?.storage ?? 0);
}

/** a volume's capacity.storage (0 when none) */
export function volumeCapacity(pv: PersistentVolume): Quantity {
  return parseQuantity(pv.spec.capacity?.storage ?? 0);
}

/** IsVolumeBoundToClaim: the PV's claimRef names this claim (and its uid, when both have one) */
export function volumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec.claimRef;
  if (!ref) return false;
  if (
    ref.name !== pvc.metadata.name ||
    (ref.namespace || 'default') !== (pvc.metadata.namespace || 'default')
  )
    return false;
  if (ref.uid && pvc.metadata.uid && ref.uid !== pvc.metadata.uid) return false;
  return true;
}

/** a volume's claimRef naming this claim (the binding the PV controller and the scheduler write) */
export function claimRefTo(pvc: PersistentVolumeClaim): NonNullable<PersistentVolumeSpec['claimRef']> {
  return {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace: pvc.metadata.namespace ?? 'default',
    name: pvc.metadata.name,
    uid: pvc.metadata.uid,
  };
}

/** CheckAccessModes: every mode the claim asks for is one the volume offers */
export function accessModesSatisfied(pvc: PersistentVolumeClaim, pv: PersistentVolume): boolean {
  const offered = new Set(pv.spec.accessModes ?? []);
  for (const m of pvc.spec.accessModes ?? []) if (!offered.has(m)) return false;
  return true;
}

export function hasAccessMode(
  modes: readonly PersistentVolumeAccessMode[] | undefined,
  m: PersistentVolumeAccessMode,
) {
  return (modes ?? []).includes(m);
}

/**
 * CheckNodeAffinity: the PV's required node affinity admits a node with these labels. Upstream
 * builds a node from the labels only, so `matchFields` (metadata.name) never matches.
 */
export function volumeNodeAffinityMatches(pv: PersistentVolume, labels: Labels): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms;
  if (!pv.spec.nodeAffinity?.required) return true;
  return nodeSelectorTermsMatch(terms ?? [], { metadata: { labels } } as Node);
}

/** MatchTopologySelectorTerms: no terms admit every node; otherwise any term whose expressions all hold */
export function topologyTermsMatch(
  terms: readonly TopologySelectorTerm[] | undefined,
  labels: Labels,
): boolean {
  if (!terms || terms.length === 0) return true;
  for (const t of terms) {
    const exprs = t.matchLabelExpressions ?? [];
    let ok = true;
    for (const e of exprs) {
      const v = Object.hasOwn(labels, e.key) ? labels[e.key] : undefined;
      if (v === undefined || !e.values.includes(v)) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

/** LabelZonesToSet: "a__b" → {a, b}; undefined when a part is empty (the label is ignored) */
export function labelZonesToSet(value: string): Set<string> | undefined {
  const parts = value.split('__');
  for (const p of parts) if (p === '') return undefined;
  return new Set(parts);
}

/** volumeMode of a claim or volume, defaulted */
const modeOf = (m: string | undefined) => m ?? 'Filesystem';

/**
 * FindMatchingVolume: the volume pre-bound to the claim, or else the smallest available volume
 * of the claim's class that satisfies its request, selector, volume mode, access modes (scheduler
 * path) and, given a node, the volume's node affinity. `node` undefined is the PV controller's
 * path, where a WaitForFirstConsumer claim (`delayBinding`) is matched only to a pre-bound volume.
 * @throws SelectorError on a claim selector that does not parse
 */
export function findMatchingVolume(
  pvc: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
  node: Labels | undefined,
  excluded: ReadonlySet<string>,
  delayBinding: boolean,
): PersistentVolume | undefined {
  const requested = claimRequest(pvc);
  const requestedClass = claimClass(pvc);
  const selector = pvc.spec.selector ? labelSelectorAsSelector(pvc.spec.selector) : undefined;
  let smallest: PersistentVolume | undefined;
  let smallestQty: Quantity | undefined;
  for (const v of volumes) {
    if (excluded.has(v.metadata.name ?? '')) continue;
    if (v.spec.claimRef && !volumeBoundToClaim(v, pvc)) continue;
    const qty = volumeCapacity(v);
    if (qty.cmp(requested) < 0) continue;
    if (modeOf(pvc.spec.volumeMode) !== modeOf(v.spec.volumeMode)) continue;
    if (v.metadata.deletionTimestamp) continue;
    const affinityOk = node === undefined || volumeNodeAffinityMatches(v, node);
    if (volumeBoundToClaim(v, pvc)) return affinityOk ? v : undefined;
    if (node === undefined && delayBinding) continue;
    if (v.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(v.metadata.labels)) continue;
    if (volumeClass(v) !== requestedClass) continue;
    if (!affinityOk) continue;
    if (node !== undefined && !accessModesSatisfied(pvc, v)) continue;
    if (smallest === undefined || smallestQty!.cmp(qty) > 0) {
      smallest = v;
      smallestQty = qty;
    }
  }
  return smallest;
}

// ---------------------------------------------------------------------------------------------
// in-tree → CSI (csi-translation-lib): which in-tree plugin a volume uses and its CSI identity

/** in-tree plugin name → CSI driver name (csi-translation-lib plugins/*.go) */
export const IN_TREE_TO_CSI: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
  'kubernetes.io/portworx-volume': 'pxd.portworx.com',
};

/** the in-tree plugin of a volume source (GetInTreePluginNameFromSpec), if it is migratable */
export function inTreePluginOf(src: VolumeSources): string | undefined {
  if (src.awsElasticBlockStore) return 'kubernetes.io/aws-ebs';
  if (src.gcePersistentDisk) return 'kubernetes.io/gce-pd';
  if (src.azureDisk) return 'kubernetes.io/azure-disk';
  if (src.azureFile) return 'kubernetes.io/azure-file';
  if (src.cinder) return 'kubernetes.io/cinder';
  if (src.vsphereVolume) return 'kubernetes.io/vsphere-volume';
  if (src.portworxVolume) return 'kubernetes.io/portworx-volume';
  return undefined;
}

/**
 * nodevolumelimits utils.go isCSIMigrationOn: AWS EBS, GCE PD, Azure Disk and Cinder are migrated
 * unconditionally in v1.34; Portworx (CSIMigrationPortworx, on by default) only when the CSINode
 * lists it in its migrated-plugins annotation; no CSINode means no migration.
 */
export function csiMigrationOn(csiNode: CSINode | undefined, plugin: string): boolean {
  if (!csiNode || !plugin) return false;
  switch (plugin) {
    case 'kubernetes.io/aws-ebs':
    case 'kubernetes.io/gce-pd':
    case 'kubernetes.io/azure-disk':
    case 'kubernetes.io/cinder':
      return true;
    case 'kubernetes.io/portworx-volume':
      break;
    default:
      return false;
  }
  const ann = csiNode.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION] ?? '';
  return ann.split(',').includes(plugin);
}

/** KubernetesVolumeIDToEBSVolumeID: "aws://zone/vol-1" → "vol-1"; a bare id as it is */
function ebsVolumeID(id: string): string {
  if (!id.startsWith('aws://')) return id;
  return id.slice('aws://'.length).split('/').filter(Boolean).pop() ?? id;
}

/**
 * The CSI volume handle an in-tree source translates to (TranslateInTreePVToCSI /
 * TranslateInTreeInlineVolumeToCSI), `zone` from the PV's zone label when it has one.
 */
export function translatedVolumeHandle(src: VolumeSources, zone?: string): string | undefined {
  if (src.awsElasticBlockStore) return ebsVolumeID(src.awsElasticBlockStore.volumeID);
  if (src.gcePersistentDisk)
    return `projects/UNSPECIFIED/zones/${zone ?? 'UNSPECIFIED'}/disks/${src.gcePersistentDisk.pdName}`;
  if (src.azureDisk) return src.azureDisk.diskURI;
  if (src.cinder) return src.cinder.volumeID;
  const v = (src.vsphereVolume ?? src.portworxVolume ?? src.azureFile) as
    | { volumePath?: string; volumeID?: string; shareName?: string }
    | undefined;
  return v ? (v.volumePath ?? v.volumeID ?? v.shareName) : undefined;
}

/** A PV's CSI driver and handle, in-tree sources translated when migration is on for the node. */
export function volumeCSIIdentity(
  spec: PersistentVolumeSpec,
  labels: Labels | undefined,
  csiNode: CSINode | undefined,
): { driver: string; handle: string } | undefined {
  if (spec.csi) return { driver: spec.csi.driver, handle: spec.csi.volumeHandle ?? '' };
  const plugin = inTreePluginOf(spec);
  if (!plugin || !csiMigrationOn(csiNode, plugin)) return undefined;
  const handle = translatedVolumeHandle(spec, labels?.['topology.kubernetes.io/zone']);
  return handle === undefined ? undefined : { driver: IN_TREE_TO_CSI[plugin]!, handle };
}

/** csi-translation-lib plugins: the zonal topology key of each migrated driver */
const CSI_ZONE_KEY: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'topology.ebs.csi.aws.com/zone',
  'kubernetes.io/gce-pd': 'topology.gke.io/zone',
  'kubernetes.io/azure-disk': 'topology.disk.csi.azure.com/zone',
  'kubernetes.io/cinder': 'topology.cinder.csi.openstack.org/zone',
};

/** binder.go isCSIMigrationOnForPlugin (CSIMigrationPortworx is on by default in v1.34) */
const BINDER_MIGRATED = new Set([...Object.keys(CSI_ZONE_KEY), 'kubernetes.io/portworx-volume']);

const ZONE_GA = 'topology.kubernetes.io/zone';
const REGION_GA = 'topology.kubernetes.io/region';
const ZONE_BETA = 'failure-domain.beta.kubernetes.io/zone';
const REGION_BETA = 'failure-domain.beta.kubernetes.io/region';

/**
 * The volume binder's tryTranslatePVToCSI (binder.go): an in-tree PV is read as its CSI driver
 * would publish it when the plugin is migrated (isCSIMigrationOnForPlugin: AWS EBS, GCE PD, Azure
 * Disk, Cinder, Portworx) and the node's CSINode lists it in its migrated-plugins annotation
 * (isPluginMigratedToCSIOnNode; no CSINode, no translation). Only the node affinity changes what
 * the binder checks, so that is what is translated (translateTopologyFromInTreeToCSI). Returns the
 * volume itself when nothing is translated.
 */
export function translatePVForNode(pv: PersistentVolume, csiNode: CSINode | undefined): PersistentVolume {
  const plugin = inTreePluginOf(pv.spec);
  if (!plugin || !BINDER_MIGRATED.has(plugin)) return pv;
  const ann = csiNode?.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION];
  if (!ann || !ann.split(',').includes(plugin)) return pv;
  const key = CSI_ZONE_KEY[plugin];
  if (!key) return pv; // Portworx: no zonal topology
  return { ...pv, spec: { ...pv.spec, nodeAffinity: translatedAffinity(pv, key) } };
}

type Affinity = NonNullable<PersistentVolumeSpec['nodeAffinity']>;

/** translateTopologyFromInTreeToCSI (csi-translation-lib plugins/in_tree_volume.go) on a copy */
function translatedAffinity(pv: PersistentVolume, csiKey: string): Affinity | undefined {
  const terms = structuredClone(pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? []);
  const keyIn = (k: string) => terms.some((t) => (t.matchExpressions ?? []).some((e) => e.key === k));
  const labels = pv.metadata.labels ?? {};
  // getTopologyLabel: the node affinity first, then the labels, GA before beta
  const has = (k: string) => Object.hasOwn(labels, k);
  const beta = !keyIn(ZONE_GA) && (keyIn(ZONE_BETA) || (!has(ZONE_GA) && has(ZONE_BETA)));
  const zoneLabel = beta ? ZONE_BETA : ZONE_GA;
  const replace = (from: string, to: string) => {
    for (const t of terms) for (const e of t.matchExpressions ?? []) if (e.key === from) e.key = to;
  };
  if (keyIn(zoneLabel)) replace(zoneLabel, csiKey);
  else if (has(zoneLabel)) {
    // addTopology: the label's zones ("a__b"), trimmed, empty ones dropped, sorted, on every term
    const zones = [...new Set(labels[zoneLabel]!.split('__').map((z) => z.trim()))].filter(Boolean).sort();
    if (zones.length > 0) {
      if (terms.length === 0) terms.push({});
      for (const t of terms) (t.matchExpressions ??= []).push({ key: csiKey, operator: 'In', values: zones });
    }
  }
  // the beta region in the node affinity becomes the GA one, so nodes with GA labels only match
  if (beta && keyIn(REGION_BETA)) replace(REGION_BETA, REGION_GA);
  if (terms.length === 0) return pv.spec.nodeAffinity;
  return { ...pv.spec.nodeAffinity, required: { nodeSelectorTerms: terms } };
}

/** binder.go capacitySufficient: maximumVolumeSize (else capacity) is at least `size` */
export function capacityHolds(c: CSIStorageCapacity, size: Quantity): boolean {
  const limit = c.maximumVolumeSize ?? c.capacity;
  if (limit === undefined || limit === null) return false;
  // resource.Quantity Value() rounds up to whole bytes on both sides
  return parseQuantity(limit).value() >= size.value();
}

/**
 * binder.go capacitySufficient and nodeHasAccess: a CSIStorageCapacity can hold a new volume of
 * `size` for a node with these labels. maximumVolumeSize is preferred over capacity (it is more
 * precise); neither set, or no nodeTopology, means no capacity; nodeTopology is matched by labels.
 */
export function capacityAdmits(c: CSIStorageCapacity, size: Quantity, labels: Labels): boolean {
  if (!capacityHolds(c, size) || !c.nodeTopology) return false;
  try {
    return labelSelectorAsSelector(c.nodeTopology).matches(labels);
  } catch {
    return false; // upstream logs the selector error and treats the segment as unreachable
  }
}

/**
 * The capacity object a new volume of class `cls` is taken from: the first that holds `size` and
 * reaches the node (any segment when no node is given). kubesim's model of a driver that reports
 * its remaining capacity after each volume (controllers/storage-capacity.ts, capacity/volumes.ts).
 */
export function capacityFor(
  capacities: readonly CSIStorageCapacity[],
  cls: string,
  size: Quantity,
  node: Labels | undefined,
): CSIStorageCapacity | undefined {
  return capacities.find(
    (c) => c.storageClassName === cls && (node ? capacityAdmits(c, size, node) : capacityHolds(c, size)),
  );
}

/**
 * The capacity object after `delta` (negative: a volume created); maximumVolumeSize stays at most
 * the capacity. Undefined when it has no capacity (a size limit only: nothing is used up).
 */
export function capacityAfter(c: CSIStorageCapacity, delta: Quantity): CSIStorageCapacity | undefined {
  if (c.capacity === undefined || c.capacity === null) return undefined;
  const capacity = parseQuantity(c.capacity).add(delta);
  const next: CSIStorageCapacity = { ...c, capacity: capacity.toString() };
  if (c.maximumVolumeSize !== undefined && parseQuantity(c.maximumVolumeSize).cmp(capacity) > 0)
    next.maximumVolumeSize = capacity.toString();
  return next;
}

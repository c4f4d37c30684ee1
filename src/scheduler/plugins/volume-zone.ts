/**
 * VolumeZone (upstream pkg/scheduler/framework/plugins/volumezone/volume_zone.go): a pod whose
 * bound PersistentVolumes carry zone/region labels fits only on nodes with the same labels.
 * PreFilter reads each claim's bound volume once (WaitForFirstConsumer claims that are still
 * unbound are skipped: VolumeBinding places them); Filter compares the node's labels.
 */
import type { Pod } from '../../api/types.js';
import { claimClass, labelZonesToSet } from '../../api/storage.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import type { FilterPlugin, Handle, PluginFactory, PreFilterPlugin } from '../framework/types.js';
import { notFound, podVolumes, StorageView } from './storage-view.js';

/** upstream ErrReasonConflict */
export const ERR_REASON_VOLUME_ZONE_CONFLICT = 'node(s) had no available volume zone';
const CONFLICT = new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_VOLUME_ZONE_CONFLICT]);

/** the beta and GA zone/region labels, in upstream's order */
const TOPOLOGY_LABELS = [
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
];

function translateToGA(label: string): string {
  if (label === 'failure-domain.beta.kubernetes.io/region') return 'topology.kubernetes.io/region';
  if (label === 'failure-domain.beta.kubernetes.io/zone') return 'topology.kubernetes.io/zone';
  return label;
}

interface PVTopology {
  key: string;
  values: Set<string>;
}

const STATE_KEY = 'PreFilterVolumeZone';
const unresolvable = (msg: string) => new Status(Code.UnschedulableAndUnresolvable, [msg]);

export class VolumeZone implements PreFilterPlugin, FilterPlugin {
  readonly name = 'VolumeZone';
  constructor(private readonly handle: Handle) {}

  static factory: PluginFactory = (_args, handle) => new VolumeZone(handle);

  /** getPVbyPod: the topology labels of the pod's bound volumes, or why they cannot be read */
  private topologies(pod: Pod): PVTopology[] | Status {
    if (!podVolumes(pod).some((v) => v.persistentVolumeClaim)) return [];
    const view = StorageView.of(this.handle.objects);
    const out: PVTopology[] = [];
    for (const vol of podVolumes(pod)) {
      if (!vol.persistentVolumeClaim) continue;
      const name = vol.persistentVolumeClaim.claimName ?? '';
      if (name === '') return unresolvable('PersistentVolumeClaim had no name');
      const pvc = view.pvc(pod.metadata.namespace, name);
      if (!pvc) return unresolvable(notFound.pvc(name));
      const pvName = pvc.spec.volumeName ?? '';
      if (pvName === '') {
        const sc = claimClass(pvc);
        if (sc === '') return unresolvable('PersistentVolumeClaim had no pv name and storageClass name');
        const cls = view.classes.get(sc);
        if (!cls) return unresolvable(notFound.storageClass(sc));
        if (!cls.volumeBindingMode) return unresolvable(`VolumeBindingMode not set for StorageClass "${sc}"`);
        if (cls.volumeBindingMode === 'WaitForFirstConsumer') continue;
        return unresolvable('PersistentVolume had no name');
      }
      const pv = view.pvs.get(pvName);
      if (!pv) return unresolvable(notFound.pv(pvName));
      const labels = pv.metadata.labels ?? {};
      for (const key of TOPOLOGY_LABELS) {
        if (!Object.hasOwn(labels, key)) continue;
        const values = labelZonesToSet(labels[key]!);
        if (values) out.push({ key, values });
      }
    }
    return out;
  }

  preFilter(state: CycleState, pod: Pod): MaybeStatus {
    const t = this.topologies(pod);
    if (t instanceof Status) return t;
    if (t.length === 0) return SKIP;
    state.write(STATE_KEY, t);
    return null;
  }

  filter(state: CycleState, pod: Pod, ni: NodeInfo): MaybeStatus {
    if (podVolumes(pod).length === 0) return null;
    let topologies = state.tryRead<PVTopology[]>(STATE_KEY);
    if (!topologies) {
      const t = this.topologies(pod);
      if (t instanceof Status) return t;
      topologies = t;
    }
    const labels = ni.labels;
    if (!TOPOLOGY_LABELS.some((l) => Object.hasOwn(labels, l))) return null;
    for (const t of topologies) {
      let v = Object.hasOwn(labels, t.key) ? labels[t.key] : undefined;
      if (v === undefined) {
        const ga = translateToGA(t.key);
        v = Object.hasOwn(labels, ga) ? labels[ga] : undefined;
      }
      if (v === undefined || !t.values.has(v)) return CONFLICT;
    }
    return null;
  }
}

/**
 * VolumeBinding (upstream pkg/scheduler/framework/plugins/volumebinding: volume_binding.go and the
 * binder's GetPodVolumeClaims / FindPodVolumes / AssumePodVolumes in binder.go).
 *
 * PreFilter sorts the pod's claims into bound, unbound WaitForFirstConsumer ("delay binding") and
 * unbound Immediate ones; an unbound Immediate claim makes the pod unschedulable until the PV
 * controller binds it. Filter, per node: a bound claim's PV must admit the node (node affinity);
 * each delay-binding claim is matched to the smallest available PV of its class that fits and
 * admits the node, or else must be provisionable there (a provisioner, and the class's
 * allowedTopologies admitting the node). Reserve assumes the choice (PV claimRef, or the claim's
 * selected-node annotation for provisioning) so the next cycle sees it; PreBind writes it through
 * the ApiServer when the scheduler runs against one and waits until every claim is bound
 * (volume-binding-wait.ts) before the pod is bound to its node; Unreserve forgets it.
 *
 * Provisioning checks storage capacity (hasEnoughCapacity) when the provisioner is a CSIDriver
 * with `storageCapacity: true`: some CSIStorageCapacity of the claim's class must reach the node
 * and hold the claim's request, else "did not have enough free storage". A bound in-tree volume
 * (AWS EBS, GCE PD, …) is checked as its CSI driver would publish it when the node's CSINode says
 * the plugin is migrated (tryTranslatePVToCSI: its zone labels become the driver's topology).
 *
 * Score (VolumeCapacityPriority, alpha upstream and off by default) runs when the profile's
 * VolumeBindingArgs give a `shape`; without one PreScore skips, as in the default profile.
 */
import type { KubeObject, Node, Pod } from '../../api/types.js';
import {
  ANN_BOUND_BY_CONTROLLER,
  capacityAdmits,
  ANN_SELECTED_NODE,
  claimClass,
  claimRefTo,
  claimFullyBound,
  claimRequest,
  findMatchingVolume,
  NOT_SUPPORTED_PROVISIONER,
  topologyTermsMatch,
  translatePVForNode,
  volumeCapacity,
  volumeNodeAffinityMatches,
} from '../../api/storage.js';
import { parseQuantity } from '../../api/quantity.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../api/storage-types.js';
import type { CycleState } from '../framework/cycle-state.js';
import type { NodeInfo } from '../framework/snapshot.js';
import { Code, errorStatus, SKIP, Status, type MaybeStatus } from '../framework/status.js';
import type {
  FilterPlugin,
  Handle,
  PluginFactory,
  PreFilterPlugin,
  PreScorePlugin,
  ReservePlugin,
  ScorePlugin,
} from '../framework/types.js';
import { BIND_POLL_MS, BIND_TIMEOUT_MS, checkBindings, type WrittenBindings } from './volume-binding-wait.js';
import {
  AssumeCache,
  ephemeralClaimOwnedBy,
  notFound,
  podVolumes,
  StorageView,
  volumeClaimName,
} from './storage-view.js';

/** upstream ErrReasonBindConflict */
export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
/** upstream ErrReasonNodeConflict (worded so since v1.33, kubernetes PR #129887; before: "had volume node affinity conflict") */
export const ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity";
/** upstream ErrReasonNotEnoughSpace */
export const ERR_REASON_NOT_ENOUGH_SPACE = 'node(s) did not have enough free storage';
/** upstream ErrReasonPVNotExist */
export const ERR_REASON_PV_NOT_EXIST =
  'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
const UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

const STATE_KEY = 'VolumeBinding';

/** What FindPodVolumes chose for one node (upstream PodVolumes). */
interface PodVolumes {
  staticBindings: { pv: PersistentVolume; pvc: PersistentVolumeClaim }[];
  dynamicProvisions: PersistentVolumeClaim[];
}

interface StateData {
  view: StorageView;
  bound: PersistentVolumeClaim[];
  delayUnbound: PersistentVolumeClaim[];
  byNode: Map<string, PodVolumes>;
  hasStaticBindings: boolean;
  allBound: boolean;
}

/** a utilization→score point of VolumeBindingArgs.shape (score 0..10) */
interface ShapePoint {
  utilization: number;
  score: number;
}

/** helper.BuildBrokenLinearFunction over points whose score is already on 0..100 */
function brokenLinear(shape: readonly ShapePoint[], p: number): number {
  for (let i = 0; i < shape.length; i++) {
    if (p <= shape[i]!.utilization) {
      if (i === 0) return shape[0]!.score;
      const a = shape[i - 1]!,
        b = shape[i]!;
      return (
        a.score + Math.trunc(((b.score - a.score) * (p - a.utilization)) / (b.utilization - a.utilization))
      );
    }
  }
  return shape[shape.length - 1]!.score;
}

/** sort.Sort(byPVCSize(claims)): by requested storage, ascending */
const bySize = (a: PersistentVolumeClaim, b: PersistentVolumeClaim) => claimRequest(a).cmp(claimRequest(b));

/** The claims a cycle chose to provision on `nodeName` (its PodVolumes' DynamicProvisions). */
export function dynamicProvisionsOf(state: CycleState, nodeName: string): readonly PersistentVolumeClaim[] {
  return state.tryRead<StateData>(STATE_KEY)?.byNode.get(nodeName)?.dynamicProvisions ?? [];
}

export class VolumeBinding
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin
{
  readonly name = 'VolumeBinding';
  private readonly assumed = new AssumeCache();
  private readonly shape: ShapePoint[] | undefined;
  /** VolumeBindingArgs.bindTimeoutSeconds, in ms */
  private readonly bindTimeoutMs: number;

  constructor(
    private readonly handle: Handle,
    args: Record<string, unknown> | undefined,
  ) {
    const t = args?.bindTimeoutSeconds;
    this.bindTimeoutMs = typeof t === 'number' ? t * 1000 : BIND_TIMEOUT_MS;
    const s = args?.shape as { utilization: number; score: number }[] | undefined;
    // MaxNodeScore / MaxCustomPriorityScore = 10
    this.shape =
      s && s.length > 0 ? s.map((p) => ({ utilization: p.utilization, score: p.score * 10 })) : undefined;
  }

  static factory: PluginFactory = (args, handle) => new VolumeBinding(handle, args);

  /** podHasPVCs: whether the pod uses claims, or why one of them cannot be used */
  private claimsError(view: StorageView, pod: Pod): { has: boolean; error?: string } {
    let has = false;
    for (const vol of podVolumes(pod)) {
      const name = volumeClaimName(pod, vol);
      if (name === undefined) continue;
      has = true;
      const pvc = view.pvc(pod.metadata.namespace, name);
      if (!pvc) {
        if (vol.ephemeral)
          return {
            has,
            error: `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"`,
          };
        return { has, error: notFound.pvc(name) };
      }
      if (pvc.status?.phase === 'Lost')
        return {
          has,
          error: `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${pvc.spec.volumeName ?? ''}"`,
        };
      if (pvc.metadata.deletionTimestamp)
        return { has, error: `persistentvolumeclaim "${name}" is being deleted` };
      if (vol.ephemeral) {
        const e = ephemeralClaimOwnedBy(pod, pvc);
        if (e) return { has, error: e };
      }
    }
    return { has };
  }

  preFilter(state: CycleState, pod: Pod): MaybeStatus {
    // most pods use no claim: skip before reading the storage objects
    if (!podVolumes(pod).some((v) => volumeClaimName(pod, v) !== undefined)) return SKIP;
    const view = StorageView.of(this.handle.objects, this.assumed);
    const { has, error } = this.claimsError(view, pod);
    if (error) return new Status(Code.UnschedulableAndUnresolvable, [error]);
    if (!has) return SKIP;
    // GetPodVolumeClaims
    const bound: PersistentVolumeClaim[] = [];
    const delayUnbound: PersistentVolumeClaim[] = [];
    let immediate = 0;
    for (const vol of podVolumes(pod)) {
      const name = volumeClaimName(pod, vol);
      if (name === undefined) continue;
      const pvc = view.pvc(pod.metadata.namespace, name)!;
      if (claimFullyBound(pvc)) {
        bound.push(pvc);
        continue;
      }
      const d = view.delayBinding(pvc);
      if (d.error) return new Status(Code.Error, [d.error]);
      if (d.delay && !pvc.spec.volumeName) delayUnbound.push(pvc);
      else immediate++;
    }
    if (immediate > 0) return new Status(Code.UnschedulableAndUnresolvable, [UNBOUND_IMMEDIATE]);
    const s: StateData = {
      view,
      bound,
      delayUnbound,
      byNode: new Map(),
      hasStaticBindings: false,
      allBound: false,
    };
    state.write(STATE_KEY, s);
    return null;
  }

  filter(state: CycleState, _pod: Pod, ni: NodeInfo): MaybeStatus {
    const s = state.read<StateData>(STATE_KEY);
    let r: { volumes: PodVolumes; reasons: string[] };
    try {
      r = this.findPodVolumes(s, ni.node);
    } catch (e) {
      return errorStatus(e);
    }
    if (r.reasons.length > 0) return new Status(Code.UnschedulableAndUnresolvable, r.reasons);
    s.byNode.set(ni.name, r.volumes);
    if (r.volumes.staticBindings.length > 0) s.hasStaticBindings = true;
    return null;
  }

  /** FindPodVolumes: the node's verdict and, when it fits, the bindings and provisions chosen */
  private findPodVolumes(s: StateData, node: Node): { volumes: PodVolumes; reasons: string[] } {
    const volumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
    const labels = node.metadata.labels ?? {};
    let boundSatisfied = true;
    let unboundSatisfied = true;
    let boundPVsFound = true;
    let sufficientStorage = true;
    // checkBoundClaims
    for (const pvc of s.bound) {
      const listed = s.view.pvs.get(pvc.spec.volumeName ?? '');
      if (!listed) {
        boundPVsFound = false;
        break;
      }
      const pv = translatePVForNode(listed, s.view.csiNodes.get(node.metadata.name ?? ''));
      if (!volumeNodeAffinityMatches(pv, labels)) {
        boundSatisfied = false;
        break;
      }
    }
    const reasons = () => {
      const out: string[] = [];
      if (!boundSatisfied) out.push(ERR_REASON_NODE_CONFLICT);
      if (!unboundSatisfied) out.push(ERR_REASON_BIND_CONFLICT);
      if (!sufficientStorage) out.push(ERR_REASON_NOT_ENOUGH_SPACE);
      if (!boundPVsFound) out.push(ERR_REASON_PV_NOT_EXIST);
      return out;
    };
    if (s.delayUnbound.length > 0) {
      const toMatch: PersistentVolumeClaim[] = [];
      const toProvision: PersistentVolumeClaim[] = [];
      for (const pvc of s.delayUnbound) {
        const selected = pvc.metadata.annotations?.[ANN_SELECTED_NODE];
        if (selected !== undefined) {
          if (selected !== node.metadata.name) {
            unboundSatisfied = false;
            return { volumes, reasons: reasons() };
          }
          toProvision.push(pvc);
        } else toMatch.push(pvc);
      }
      // findMatchingVolumes: smallest claims first, each PV chosen once
      if (toMatch.length > 0) {
        const chosen = new Set<string>();
        for (const pvc of [...toMatch].sort(bySize)) {
          const pv = findMatchingVolume(pvc, s.view.pvsOfClass(claimClass(pvc)), labels, chosen, true);
          if (!pv) {
            unboundSatisfied = false;
            toProvision.push(pvc);
            continue;
          }
          chosen.add(pv.metadata.name ?? '');
          volumes.staticBindings.push({ pv, pvc });
        }
      }
      // checkVolumeProvisions
      if (toProvision.length > 0) {
        unboundSatisfied = true;
        for (const pvc of toProvision) {
          const name = pvc.metadata.name ?? '';
          const cls = claimClass(pvc);
          if (cls === '') throw new Error(`no class for claim "${name}"`);
          const sc = s.view.classes.get(cls);
          if (!sc) throw new Error(`failed to find storage class "${cls}"`);
          if (
            !sc.provisioner ||
            sc.provisioner === NOT_SUPPORTED_PROVISIONER ||
            !topologyTermsMatch(sc.allowedTopologies, labels)
          ) {
            unboundSatisfied = false;
            volumes.dynamicProvisions = [];
            break;
          }
          if (!this.hasEnoughCapacity(s, pvc, sc, labels)) {
            sufficientStorage = false;
            volumes.dynamicProvisions = [];
            break;
          }
          volumes.dynamicProvisions.push(pvc);
        }
      }
    }
    return { volumes, reasons: reasons() };
  }

  /**
   * hasEnoughCapacity: only for a provisioner that is a CSIDriver opting into capacity tracking;
   * then some CSIStorageCapacity of the class must reach the node and hold the claim's request.
   */
  private hasEnoughCapacity(
    s: StateData,
    pvc: PersistentVolumeClaim,
    sc: StorageClass,
    labels: Readonly<Record<string, string>>,
  ): boolean {
    const request = pvc.spec.resources?.requests?.storage;
    if (request === undefined) return true;
    if (s.view.csiDrivers.get(sc.provisioner)?.spec?.storageCapacity !== true) return true;
    const size = parseQuantity(request);
    const cls = sc.metadata.name;
    for (const c of s.view.capacities)
      if (c.storageClassName === cls && capacityAdmits(c, size, labels)) return true;
    return false;
  }

  preScore(state: CycleState): MaybeStatus {
    if (!this.shape) return SKIP;
    return state.read<StateData>(STATE_KEY).hasStaticBindings ? null : SKIP;
  }

  score(state: CycleState, _pod: Pod, ni: NodeInfo): number {
    const shape = this.shape;
    if (!shape) return 0;
    const v = state.read<StateData>(STATE_KEY).byNode.get(ni.name);
    if (!v) return 0;
    // requested and capacity of the statically bound volumes, per storage class
    const byClass = new Map<string, { requested: number; capacity: number }>();
    for (const b of v.staticBindings) {
      const c = b.pv.spec.storageClassName ?? '';
      const r = byClass.get(c) ?? { requested: 0, capacity: 0 };
      r.requested += Number(claimRequest(b.pvc).value());
      r.capacity += Number(volumeCapacity(b.pv).value());
      byClass.set(c, r);
    }
    if (byClass.size === 0) return 0;
    let sum = 0;
    for (const r of byClass.values())
      sum += brokenLinear(
        shape,
        r.capacity === 0 || r.requested > r.capacity ? 100 : Math.trunc((r.requested * 100) / r.capacity),
      );
    return Math.round(sum / byClass.size);
  }

  /** AssumePodVolumes: the chosen bindings become visible to the next cycles */
  reserve(state: CycleState, _pod: Pod, nodeName: string): MaybeStatus {
    const s = state.tryRead<StateData>(STATE_KEY);
    if (!s) return null;
    const v = s.byNode.get(nodeName);
    if (!v) {
      s.allBound = true;
      return null;
    }
    s.allBound = v.staticBindings.length === 0 && v.dynamicProvisions.length === 0;
    for (const b of v.staticBindings) {
      const pvc = b.pvc;
      const pv: PersistentVolume = structuredClone(b.pv);
      pv.spec.claimRef = claimRefTo(pvc);
      pv.metadata.annotations = { ...pv.metadata.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' };
      this.assumed.assumePV(pv, b.pv);
    }
    for (const pvc0 of v.dynamicProvisions) {
      const pvc: PersistentVolumeClaim = structuredClone(pvc0);
      pvc.metadata.annotations = { ...pvc.metadata.annotations, [ANN_SELECTED_NODE]: nodeName };
      this.assumed.assumePVC(pvc, pvc0);
    }
    return null;
  }

  unreserve(state: CycleState, _pod: Pod, nodeName: string): void {
    const v = state.tryRead<StateData>(STATE_KEY)?.byNode.get(nodeName);
    if (!v) return;
    for (const b of v.staticBindings) this.assumed.pvs.delete(b.pv.metadata.name ?? '');
    for (const pvc of v.dynamicProvisions)
      this.assumed.pvcs.delete(`${pvc.metadata.namespace || 'default'}/${pvc.metadata.name}`);
  }

  /**
   * PreBind (BindPodVolumes): writes the assumed PVs and claims through the ApiServer, then waits
   * until the PV controller (and the provisioner) bound every claim, polling the listers once a
   * second (checkBindings). An error ends the wait — the provisioner gave the node up, a volume lost
   * its claimRef, the timeout — and the pod goes back to the queue (`binding volumes: …`). Without
   * a clock to wait on (a what-if run) the pod is bound at once.
   */
  async preBind(state: CycleState, pod: Pod, nodeName: string): Promise<MaybeStatus> {
    const s = state.tryRead<StateData>(STATE_KEY);
    if (!s || s.allBound || !this.handle.update) return null;
    const v = s.byNode.get(nodeName);
    if (!v) return new Status(Code.Error, [`no pod volumes found for node "${nodeName}"`]);
    const bindings: WrittenBindings = { staticBindings: [], claimsToProvision: [] };
    for (const b of v.staticBindings) {
      const a = this.assumed.pvs.get(b.pv.metadata.name ?? '');
      if (a) {
        const st = await this.handle.update(a.obj);
        if (st) return st;
      }
      bindings.staticBindings.push({ pv: a?.obj ?? b.pv, pvc: b.pvc, written: !!a });
    }
    for (const pvc of v.dynamicProvisions) {
      const a = this.assumed.pvcs.get(`${pvc.metadata.namespace || 'default'}/${pvc.metadata.name}`);
      if (a) {
        const st = await this.handle.update(a.obj);
        if (st) return st;
      }
      bindings.claimsToProvision.push({ pvc: a?.obj ?? pvc, written: !!a });
    }
    const sleep = this.handle.sleep;
    if (!sleep) return null;
    const deadline = this.handle.clock.now() + this.bindTimeoutMs;
    const failed = (why: string) => new Status(Code.Error, [`binding volumes: ${why}`]);
    for (;;) {
      // wait.PollUntilContextTimeout(…, immediate=false): the first check comes after one interval
      if (!(await sleep(BIND_POLL_MS))) return failed('context canceled');
      const node = this.handle.snapshot.get(nodeName)?.node;
      const r = checkBindings(this.handle.objects.storage, pod, node, nodeName, bindings);
      if (r === true) return null;
      if (r !== false) return failed(r);
      if (this.handle.clock.now() >= deadline) return failed('context deadline exceeded');
    }
  }
}

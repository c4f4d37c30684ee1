/**
 * DynamicResources (upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go,
 * v1.34), in the default profile between InterPodAffinity and DefaultPreemption.
 *
 * PreFilter: a pod without `spec.resourceClaims` is skipped before anything is read, so pods
 * without claims never reach Filter and the engine's window filter still covers every active
 * filter (device allocation stays off their per-node path). Otherwise every claim must exist, not
 * be being deleted, be owned by the pod when it came from a template, and be free to reserve; the
 * device classes of the unallocated claims must exist; an allocator is prepared for them.
 * Filter, per node: an allocated claim's node selector must admit the node; the unallocated claims
 * must all get devices on it (structured allocator), the result is kept for Reserve.
 * PostFilter: an allocated claim that is not available on the nodes and has no other consumer is
 * deallocated (so that the next attempt may allocate it elsewhere) before preemption is tried.
 * Reserve assumes the allocations (the next cycles count those devices as taken); Unreserve
 * forgets them and takes the pod out of reservedFor; PreBind writes the finalizer, the allocation
 * and the pod's entry in status.reservedFor through the ApiServer (offline: the assumption stays).
 *
 * Reasons are upstream's texts. PreEnqueue's check (claims exist) runs at PreFilter: the queue has
 * no PreEnqueue point (docs/scheduler.md). Upstream picks the claim to deallocate at random; kubesim
 * takes the first.
 */
import {
  claimCanBeReserved,
  claimIsForPod,
  claimIsReservedForPod,
  claimKeyOf,
  claimNameFor,
  podResourceClaims,
} from '../../../api/resource-claims.js';
import { CLAIM_FINALIZER, type AllocationResult, type ResourceClaim } from '../../../api/resource-types.js';
import { nodeSelectorTermsMatch } from '../../../api/node-affinity.js';
import type { Node, Pod } from '../../../api/types.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/snapshot.js';
import { Code, SKIP, Status, type MaybeStatus } from '../../framework/status.js';
import type {
  ClusterEventKind,
  EnqueueExtensions,
  FilterPlugin,
  Handle,
  PluginFactory,
  PostFilterPlugin,
  PostFilterResult,
  PreBindPlugin,
  PreFilterPlugin,
  ReservePlugin,
} from '../../framework/types.js';
import { AllocationError, Allocator } from './allocator.js';
import { ClaimsView, type Stamp, stampSum } from './claims-view.js';
import { explainClaims, REASON_CANNOT_ALLOCATE, REASON_IN_USE, REASON_NOT_AVAILABLE } from './explain.js';
import type { ClaimExplanation } from '../../framework/explain.js';

export const NAME = 'DynamicResources';

const CANNOT_ALLOCATE = new Status(Code.UnschedulableAndUnresolvable, [REASON_CANNOT_ALLOCATE]);
const NOT_AVAILABLE = new Status(Code.UnschedulableAndUnresolvable, [REASON_NOT_AVAILABLE]);

const unresolvable = (reason: string) => new Status(Code.UnschedulableAndUnresolvable, [reason]);

interface StateData {
  /** the pod's claims, in spec order */
  claims: ResourceClaim[];
  /** per claim: the allocation's node selector, when allocated */
  availableOn: (((n: Node) => boolean) | undefined)[];
  allocator?: Allocator;
  /** Filter's allocations kept for claims with these specs (see {@link Memo}) */
  memo?: Map<string, Memo>;
  /** indices of allocated claims not available on some node (PostFilter) */
  unavailable: Set<number>;
  /** Filter's allocations per node name (Reserve uses them) */
  nodeAllocations: Map<string, AllocationResult[]>;
  /** per claim: the allocation Reserve made, for PreBind */
  allocation: (AllocationResult | undefined)[];
}

/**
 * One node's allocation for claims of one spec (undefined: they do not fit), with what it was made
 * from. Replicas of one template have claims of equal specs, and the allocator's result depends
 * only on the specs, the classes, the node's pools and which of their devices are allocated
 * (ClaimsView.stampOf), so a node none of that changed on gives the same result again: a cycle runs
 * the allocator only on the nodes whose devices moved since it last ran there.
 */
interface Memo {
  node: Node;
  generation: number;
  /** the node's pool stamps, and their sum when the result was made */
  stamps: readonly Stamp[];
  pools: number;
  result: AllocationResult[] | undefined;
}
/** claim-spec signatures remembered at most; more start afresh */
const MEMO_SIGNATURES = 64;

export class DynamicResources
  implements PreFilterPlugin, FilterPlugin, PostFilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions
{
  readonly name = NAME;
  readonly view = new ClaimsView();
  /** claim-spec signature → node name → Filter's allocation there ({@link Memo}) */
  private readonly memos = new Map<string, Map<string, Memo>>();

  constructor(private readonly handle: Handle) {}

  static factory: PluginFactory = (_args, handle) => new DynamicResources(handle);

  eventsToRegister(): ClusterEventKind[] {
    return ['NodeAdd', 'NodeUpdate', 'ResourceChange', 'UnscheduledPodUpdate'];
  }

  /** foreachPodResourceClaim: the pod's claims, or why one of them cannot be used */
  private podClaims(pod: Pod): ResourceClaim[] | string {
    const out: ResourceClaim[] = [];
    for (const pc of podResourceClaims(pod)) {
      const n = claimNameFor(pod, pc);
      if (n.error) return n.error;
      if (n.name === undefined) continue;
      const claim = this.view.claims.get(claimKeyOf(pod.metadata.namespace, n.name));
      if (!claim) return `resourceclaim.resource.k8s.io "${n.name}" not found`;
      if (claim.metadata.deletionTimestamp) return `resourceclaim "${n.name}" is being deleted`;
      if (n.mustCheckOwner) {
        const e = claimIsForPod(pod, claim);
        if (e) return e;
      }
      out.push(claim);
    }
    return out;
  }

  /** `kubesim explain`: each of the pod's claims on each node (explain.ts) */
  explainClaims(pod: Pod, nodes: readonly NodeInfo[]): ClaimExplanation[] {
    this.view.sync(this.handle.objects.resources);
    return explainClaims(this.view, pod, nodes);
  }

  preFilter(state: CycleState, pod: Pod): MaybeStatus {
    // most pods have no claims: nothing is read for them
    if (podResourceClaims(pod).length === 0) return SKIP;
    this.view.sync(this.handle.objects.resources);
    const claims = this.podClaims(pod);
    if (typeof claims === 'string') return unresolvable(claims);
    if (claims.length === 0) return SKIP;
    const s: StateData = {
      claims,
      availableOn: [],
      unavailable: new Set(),
      nodeAllocations: new Map(),
      allocation: [],
    };
    const toAllocate: ResourceClaim[] = [];
    for (const claim of claims) {
      const alloc = claim.status?.allocation;
      if (alloc && !claimCanBeReserved(claim) && !claimIsReservedForPod(pod, claim))
        return unresolvable(REASON_IN_USE);
      if (alloc) {
        const terms = alloc.nodeSelector?.nodeSelectorTerms;
        s.availableOn.push(terms ? (n: Node) => nodeSelectorTermsMatch(terms, n) : undefined);
        continue;
      }
      s.availableOn.push(undefined);
      toAllocate.push(claim);
      for (const r of claim.spec.devices?.requests ?? []) {
        const subs = r.firstAvailable && r.firstAvailable.length > 0 ? r.firstAvailable : undefined;
        const classes = subs
          ? subs.map((x) => [`${r.name}/${x.name}`, x.deviceClassName] as const)
          : [[r.name, r.exactly?.deviceClassName ?? ''] as const];
        for (const [req, cls] of classes) {
          if (cls === '') return new Status(Code.Error, [`request ${req}: unsupported request type`]);
          if (!this.view.classes.has(cls))
            return unresolvable(`request ${req}: device class ${cls} does not exist`);
        }
      }
    }
    if (toAllocate.length > 0) {
      const signature = JSON.stringify(toAllocate.map((c) => c.spec));
      let memo = this.memos.get(signature);
      if (!memo) {
        if (this.memos.size >= MEMO_SIGNATURES) this.memos.clear();
        this.memos.set(signature, (memo = new Map()));
      }
      s.memo = memo;
      s.allocator = new Allocator({
        claims: toAllocate,
        allocated: this.view.allocatedIds,
        classes: (n) => this.view.classes.get(n),
        slicesFor: (n) => this.view.slicesFor(n),
        poolsFor: (n) => this.view.poolsFor(n),
        slicesOfPool: this.view.slicesOfPool,
      });
    }
    state.write(NAME, s);
    return null;
  }

  filter(state: CycleState, _pod: Pod, ni: NodeInfo): MaybeStatus {
    const s = state.read<StateData>(NAME);
    const node = ni.node;
    let unavailable = false;
    for (let i = 0; i < s.availableOn.length; i++) {
      const on = s.availableOn[i];
      if (on && !on(node)) {
        s.unavailable.add(i);
        unavailable = true;
      }
    }
    if (s.allocator) {
      let a: AllocationResult[] | undefined;
      const generation = this.view.generation;
      const m = s.memo!.get(ni.name);
      if (m !== undefined && m.node === node && m.generation === generation && m.pools === stampSum(m.stamps))
        a = m.result;
      else {
        const stamps = this.view.stampsOf(node);
        const pools = stampSum(stamps);
        try {
          a = s.allocator.allocate(node);
        } catch (e) {
          if (e instanceof AllocationError) return new Status(Code.Error, [e.message]);
          throw e;
        }
        s.memo!.set(ni.name, { node, generation, stamps, pools, result: a });
      }
      if (!a || a.length !== s.allocator.claims.length) return CANNOT_ALLOCATE;
      if (!unavailable) s.nodeAllocations.set(ni.name, a);
    }
    return unavailable ? NOT_AVAILABLE : null;
  }

  postFilter(state: CycleState, pod: Pod): { result?: PostFilterResult; status: MaybeStatus } {
    if (podResourceClaims(pod).length === 0) return { status: new Status(Code.Unschedulable) };
    const s = state.tryRead<StateData>(NAME);
    if (!s || s.claims.length === 0)
      return { status: new Status(Code.Unschedulable, ['no new claims to deallocate']) };
    for (const i of [...s.unavailable].sort((a, b) => a - b)) {
      const claim = s.claims[i]!;
      const rf = claim.status?.reservedFor ?? [];
      if (rf.length === 0 || (rf.length === 1 && rf[0]!.uid === pod.metadata.uid)) {
        const next: ResourceClaim = {
          ...claim,
          status: { ...claim.status, reservedFor: undefined, allocation: undefined },
        };
        delete next.status!.reservedFor;
        delete next.status!.allocation;
        this.view.assume(next);
        void this.handle.update?.(next, 'status');
        return { status: new Status(Code.Unschedulable, ['deallocation of ResourceClaim completed']) };
      }
    }
    return { status: new Status(Code.Unschedulable, ['still not schedulable']) };
  }

  reserve(state: CycleState, _pod: Pod, nodeName: string): MaybeStatus {
    const s = state.tryRead<StateData>(NAME);
    if (!s || !s.allocator) return null;
    const allocations = s.nodeAllocations.get(nodeName);
    if (!allocations) return new Status(Code.Error, ['claim allocation not found for node']);
    const toAllocate = s.allocator.claims;
    toAllocate.forEach((claim, i) => {
      const index = s.claims.indexOf(claim);
      // a copy of what the claim owns: the memo may hand the node's result to the next pod of
      // the same claim spec (only when no device was counted: admin access)
      const a = allocations[i]!;
      const allocation: AllocationResult = a.devices
        ? { ...a, devices: { ...a.devices, results: a.devices.results?.map((r) => ({ ...r })) } }
        : { ...a };
      s.allocation[index] = allocation;
      const finalizers = claim.metadata.finalizers ?? [];
      this.view.assume({
        ...claim,
        metadata: {
          ...claim.metadata,
          finalizers: finalizers.includes(CLAIM_FINALIZER) ? finalizers : [...finalizers, CLAIM_FINALIZER],
        },
        status: { ...claim.status, allocation },
      });
    });
    return null;
  }

  unreserve(state: CycleState, pod: Pod): void {
    const s = state.tryRead<StateData>(NAME);
    if (!s) return;
    for (const claim of s.claims) {
      if (
        this.view.isAssumed(claim.metadata.namespace, claim.metadata.name ?? '') &&
        s.allocation[s.claims.indexOf(claim)]
      )
        this.view.restore(claim.metadata.namespace, claim.metadata.name ?? '');
      if (claim.status?.allocation && claimIsReservedForPod(pod, claim) && this.handle.update) {
        const reservedFor = (claim.status.reservedFor ?? []).filter((r) => r.uid !== pod.metadata.uid);
        const next: ResourceClaim = { ...claim, status: { ...claim.status, reservedFor } };
        void this.handle.update(next, 'status');
      }
    }
  }

  /** PreBind (bindClaim): finalizer, allocation and reservation written through the ApiServer */
  async preBind(state: CycleState, pod: Pod): Promise<MaybeStatus> {
    const s = state.tryRead<StateData>(NAME);
    if (!s || !this.handle.update) return null;
    for (const [i, listed] of s.claims.entries()) {
      if (claimIsReservedForPod(pod, listed)) continue;
      const allocation = s.allocation[i];
      let claim: ResourceClaim = listed;
      if (allocation) {
        const finalizers = claim.metadata.finalizers ?? [];
        if (!finalizers.includes(CLAIM_FINALIZER)) {
          claim = { ...claim, metadata: { ...claim.metadata, finalizers: [...finalizers, CLAIM_FINALIZER] } };
          const st = await this.handle.update(claim);
          if (st) return new Status(Code.Error, [`add finalizer to claim ${ref(claim)}: ${st.message()}`]);
        }
      }
      const reservedFor = [
        ...(claim.status?.reservedFor ?? []),
        { resource: 'pods', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
      ];
      const next: ResourceClaim = {
        ...claim,
        // written without a resourceVersion: the finalizer update moved it (an unconditional update,
        // as ResourceClaim's strategy allows)
        metadata: { ...claim.metadata, resourceVersion: undefined },
        status: { ...claim.status, ...(allocation ? { allocation } : {}), reservedFor },
      };
      const st = await this.handle.update(next, 'status');
      if (st)
        return new Status(Code.Error, [
          `${allocation ? 'add allocation and reservation' : 'add reservation'} to claim ${ref(claim)}: ${st.message()}`,
        ]);
    }
    return null;
  }
}

const ref = (c: ResourceClaim) => `${c.metadata.namespace ?? 'default'}/${c.metadata.name}`;

/**
 * The pod's claims as Reserve left them in `state` (the allocation filled in for those it
 * allocated): what a caller simulating placements on copies of the cluster carries over to its
 * next copy (the cluster-autoscaler's scale-down; upstream keeps them in its DRA snapshot).
 */
export function claimsAfterReserve(state: CycleState): ResourceClaim[] {
  const s = state.tryRead<StateData>(NAME);
  if (!s) return [];
  return s.claims.map((c, i) => {
    const allocation = s.allocation[i];
    return allocation ? { ...c, status: { ...c.status, allocation } } : c;
  });
}

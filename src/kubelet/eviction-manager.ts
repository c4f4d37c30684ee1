/**
 * The kubelet's eviction manager (upstream: pkg/kubelet/eviction/eviction_manager.go, synchronize)
 * for every node of the kubelet fleet, on the rules of eviction.ts. Every housekeeping interval
 * (10 s) and per node:
 *
 *   1. observe the signals from the pods' usage (the scenario's `usage:` curves, seeded noise; a
 *      pod no rule selects uses its requests): memory.available = capacity − system − Σ working
 *      set; nodefs.available (and imagefs.available, the same filesystem) = ephemeral-storage
 *      capacity − Σ pod usage; pid.available = maxPids − Σ processes;
 *   2. the thresholds met now, plus those met last round that min-reclaim does not yet release;
 *   3. node conditions (MemoryPressure, DiskPressure, PIDPressure) from them, held for the
 *      pressure transition period after the last observation; a change is posted at once;
 *   4. the thresholds met for their grace period; none → done;
 *   5. the first by eviction priority (memory first) picks the ranking; the first pod in it is
 *      evicted — one pod per round, as upstream — with phase Failed, reason Evicted, upstream's
 *      message, a DisruptionTarget condition and an Evicted event; hard thresholds give it 1 s,
 *      soft ones min(evictionMaxPodGracePeriod, its terminationGracePeriodSeconds).
 *
 * Simplified (docs/sim.md): usage is per pod, attributed to its first container in the message; no
 * node-level reclaim (image garbage collection) before evicting; static and critical pods are not
 * exempt; no memcg notifier (observations only at the housekeeping interval).
 */
import type { Node, Pod } from '../api/types.js';
import { bytes, formatQuantity } from '../api/quantity.js';
import { podRequests } from '../api/pod-requests.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import {
  byEvictionPriority,
  nodeConditions,
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  type Observations,
  type PressureCondition,
  parseThresholdConfig,
  type RankedPod,
  rankForEviction,
  SIGNAL_RESOURCE,
  type Signal,
  type Threshold,
  thresholdQuantity,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
} from './eviction.js';
import type { KubeletEvictionSettings, UsageCurve, UsageRule } from './settings.js';

/** The thresholds of the kubelet settings; a bad one is `fail`ed naming settings.kubelet. */
export function evictionThresholds(
  k: KubeletEvictionSettings,
  duration: (v: string, where: string) => number,
  fail: (path: string, message: string) => never,
): Threshold[] {
  try {
    return parseThresholdConfig(
      {
        hard: k.evictionHard,
        soft: k.evictionSoft,
        softGracePeriod: k.evictionSoftGracePeriod,
        minReclaim: k.evictionMinimumReclaim,
      },
      bytes,
      duration,
    );
  } catch (e) {
    return fail('settings.kubelet', (e as Error).message);
  }
}

/** What the manager needs of the kubelet fleet. */
export interface EvictionHost {
  clock: Clock;
  rng: Rng;
  /** the live nodes */
  nodes(): Node[];
  /** the node's running pods (started, not terminating or finished) and when they started */
  pods(node: string): { pod: Pod; startedAt: number }[];
  /** stop the pod within `gracePeriodSeconds` and post it Failed, reason Evicted */
  evict(pod: Pod, message: string, gracePeriodSeconds: number): void;
  /** the node's pressure conditions changed */
  setPressure(node: string, conditions: PressureCondition[]): void;
  event(obj: Node | Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface KubeletEvictionRecord {
  atMs: number;
  node: string;
  pod: string;
  signal: Signal;
  qosClass: string;
}

interface NodeState {
  thresholdsMet: Threshold[];
  firstObservedAt: Map<Threshold, number>;
  conditionsLastObservedAt: Map<PressureCondition, number>;
  conditions: PressureCondition[];
}

const DEFAULT_NODEFS = 100 * 1024 ** 3;
/** immediateEvictionGracePeriodSeconds */
const IMMEDIATE_GRACE_S = 1;

const RECLAIM_MESSAGE: Record<PressureCondition, [reason: string, message: string]> = {
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
};

export class EvictionManager {
  private readonly state = new Map<string, NodeState>();
  private timer?: TimerHandle;
  readonly records: KubeletEvictionRecord[] = [];

  constructor(
    private readonly host: EvictionHost,
    private readonly settings: KubeletEvictionSettings,
    private readonly thresholds: Threshold[],
    private readonly usage: UsageRule[],
  ) {}

  start(): void {
    const every = this.settings.housekeepingIntervalMs;
    const tick = () => {
      this.timer = this.host.clock.setTimer(tick, every);
      for (const n of this.host.nodes()) this.synchronize(n);
    };
    this.timer = this.host.clock.setTimer(tick, every);
  }

  stop(): void {
    if (this.timer) this.host.clock.clearTimer(this.timer);
  }

  /** One pod's usage now: its rule's curves, else its requests (processes: 0). */
  private podUsage(pod: Pod, startedAt: number, now: number): RankedPod['usage'] {
    const labels = pod.metadata.labels ?? {};
    const rule = this.usage.find((r) => Object.entries(r.matchLabels).every(([k, v]) => labels[k] === v));
    const req = podRequests(pod);
    const jitter = () => (rule && rule.noise > 0 ? 1 + rule.noise * (2 * this.host.rng.next() - 1) : 1);
    const at = (c: UsageCurve | undefined, dflt: number) => {
      if (!c) return dflt;
      const v = c.start + (c.perMinute * Math.max(0, now - startedAt)) / 60_000;
      return Math.max(0, Math.round((c.max === undefined ? v : Math.min(c.max, v)) * jitter()));
    };
    return {
      memory: at(rule?.memory, req.get('memory') ?? 0),
      'ephemeral-storage': at(rule?.ephemeralStorage, req.get('ephemeral-storage') ?? 0),
      pids: Math.round(at(rule?.pids, 0)),
    };
  }

  /** eviction_manager.go synchronize, for one node (the steps in the module comment) */
  synchronize(node: Node): void {
    const name = node.metadata.name!;
    const now = this.host.clock.now();
    let st = this.state.get(name);
    if (!st) {
      st = {
        thresholdsMet: [],
        firstObservedAt: new Map(),
        conditionsLastObservedAt: new Map(),
        conditions: [],
      };
      this.state.set(name, st);
    }
    // 1. observations
    const running = this.host.pods(name);
    const pods: (RankedPod & { pod: Pod })[] = running.map(({ pod, startedAt }) => {
      const req = podRequests(pod);
      return {
        pod,
        name: `${pod.metadata.namespace}/${pod.metadata.name}`,
        priority: pod.spec.priority ?? 0,
        requests: { memory: req.get('memory') ?? 0, 'ephemeral-storage': req.get('ephemeral-storage') ?? 0 },
        usage: this.podUsage(pod, startedAt, now),
      };
    });
    const cap = node.status?.capacity ?? {};
    const sum = (k: keyof RankedPod['usage']) => pods.reduce((a, p) => a + p.usage[k], 0);
    const memCap = cap.memory ? bytes(cap.memory) : 0;
    const fsCap = cap['ephemeral-storage'] ? bytes(cap['ephemeral-storage']) : DEFAULT_NODEFS;
    const fs = { available: fsCap - sum('ephemeral-storage'), capacity: fsCap };
    const obs: Observations = {
      'memory.available': {
        available: memCap - this.settings.systemMemory - sum('memory'),
        capacity: memCap,
      },
      'nodefs.available': fs,
      'imagefs.available': fs,
      'pid.available': { available: this.settings.maxPids - sum('pids'), capacity: this.settings.maxPids },
    };
    // 2. thresholds met, and those not yet resolved by min-reclaim
    let met = thresholdsMet(this.thresholds, obs, false);
    if (st.thresholdsMet.length)
      for (const t of thresholdsMet(st.thresholdsMet, obs, true)) if (!met.includes(t)) met.push(t);
    st.firstObservedAt = thresholdsFirstObservedAt(met, st.firstObservedAt, now);
    // 3. node conditions, held for the transition period
    st.conditionsLastObservedAt = nodeConditionsLastObservedAt(
      nodeConditions(met),
      st.conditionsLastObservedAt,
      now,
    );
    const conditions = nodeConditionsObservedSince(
      st.conditionsLastObservedAt,
      this.settings.evictionPressureTransitionPeriodMs,
      now,
    ).sort();
    if (conditions.join() !== st.conditions.join()) {
      for (const c of conditions)
        if (!st.conditions.includes(c))
          this.host.event(
            node,
            'Normal',
            RECLAIM_MESSAGE[c][0],
            `Node ${name} status is now: ${RECLAIM_MESSAGE[c][0]}`,
          );
      for (const c of st.conditions)
        if (!conditions.includes(c))
          this.host.event(
            node,
            'Normal',
            RECLAIM_MESSAGE[c][1],
            `Node ${name} status is now: ${RECLAIM_MESSAGE[c][1]}`,
          );
      st.conditions = conditions;
      this.host.setPressure(name, conditions);
    }
    // 4. met for their grace period
    met = thresholdsMetGracePeriod(st.firstObservedAt, now);
    st.thresholdsMet = met;
    if (!met.length) return;
    // 5. one pod, ranked for the first threshold by eviction priority
    const t = byEvictionPriority(met)[0]!;
    const resource = SIGNAL_RESOURCE[t.signal];
    this.host.event(node, 'Warning', 'EvictionThresholdMet', `Attempting to reclaim ${resource}`);
    const victim = rankForEviction(pods, t.signal)[0] as (RankedPod & { pod: Pod }) | undefined;
    if (!victim) return;
    const o = obs[t.signal]!;
    const q = (n: number) => (resource === 'pids' ? String(n) : formatQuantity(`${Math.ceil(n / 1024)}Ki`));
    let message =
      `The node was low on resource: ${resource}. ` +
      `Threshold quantity: ${q(thresholdQuantity(t.value, o.capacity))}, available: ${q(Math.max(0, o.available))}. `;
    if (resource !== 'pids') {
      const c = victim.pod.spec.containers[0];
      const usage = victim.usage[resource];
      if (c && usage > victim.requests[resource])
        message += `Container ${c.name} was using ${q(usage)}, request is ${q(victim.requests[resource])}, has larger consumption of ${resource}. `;
    }
    const grace =
      t.gracePeriodMs === 0
        ? IMMEDIATE_GRACE_S
        : Math.min(
            this.settings.evictionMaxPodGracePeriod,
            victim.pod.spec.terminationGracePeriodSeconds ?? 30,
          );
    this.records.push({
      atMs: now,
      node: name,
      pod: victim.name,
      signal: t.signal,
      qosClass: String(victim.pod.status?.qosClass ?? ''),
    });
    this.host.event(victim.pod, 'Warning', 'Evicted', message);
    this.host.evict(victim.pod, message, grace);
  }
}

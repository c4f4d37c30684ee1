/**
 * The arithmetic of Deployment rollouts (pkg/controller/deployment/util and rolling.go), as pure
 * functions over ReplicaSets so that they can be checked against upstream's test tables.
 *
 * Worked example (replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded
 * down)): at most 13 pods exist and at least 8 are available at every step. The new ReplicaSet is
 * scaled up to 13 − (sum of all ReplicaSets' spec.replicas); old ones are scaled down by
 * (available pods − 8), first removing their unhealthy pods.
 */
import type { Deployment, ReplicaSet } from '../api/types.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total rounded up or down.
 * Throws on anything else (upstream's "invalid value for IntOrString").
 */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    if (/^\d+$/.test(v))
      throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
    throw new Error(
      `invalid value for IntOrString: invalid value "${v}": must be an integer or percentage (e.g '5%')`,
    );
  }
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** ResolveFenceposts: (maxSurge rounded up, maxUnavailable rounded down); both 0 → unavailable 1 */
export function resolveFenceposts(
  maxSurge: number | string | undefined,
  maxUnavailable: number | string | undefined,
  desired: number,
): [number, number] {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

const DEFAULT_SURGE = '25%';
const DEFAULT_UNAVAILABLE = '25%';

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

function rollingParams(d: Deployment): [number | string, number | string] {
  const ru = d.spec.strategy?.rollingUpdate;
  return [ru?.maxSurge ?? DEFAULT_SURGE, ru?.maxUnavailable ?? DEFAULT_UNAVAILABLE];
}

export function replicasOf(x: { spec: { replicas?: number } }): number {
  return x.spec.replicas ?? 1;
}

/** MaxUnavailable(deployment): 0 for Recreate or 0 replicas, never more than replicas */
export function maxUnavailable(d: Deployment): number {
  const r = replicasOf(d);
  if (!isRollingUpdate(d) || r === 0) return 0;
  const [s, u] = rollingParams(d);
  const [, mu] = resolveFenceposts(s, u, r);
  return Math.min(mu, r);
}

/** MaxSurge(deployment): 0 for Recreate */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const [s, u] = rollingParams(d);
  return resolveFenceposts(s, u, replicasOf(d))[0];
}

/** GetReplicaCountForReplicaSets: sum of spec.replicas */
export function specReplicaSum(rss: ReplicaSet[]): number {
  let n = 0;
  for (const rs of rss) n += rs.spec.replicas ?? 0;
  return n;
}

export function availableSum(rss: ReplicaSet[]): number {
  let n = 0;
  for (const rs of rss) n += rs.status?.availableReplicas ?? 0;
  return n;
}

/** NewRSNewReplicas: how far the new ReplicaSet may be scaled up now */
export function newRSNewReplicas(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet): number {
  const cur = newRS.spec.replicas ?? 0;
  if (!isRollingUpdate(d)) return replicasOf(d);
  const total = specReplicaSum(allRSs);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (total >= maxTotal) return cur;
  const up = Math.min(maxTotal - total, replicasOf(d) - cur);
  return cur + up;
}

/** reconcileNewReplicaSet's decision: the new RS's target size, or undefined for no change */
export function planNewReplicaSet(
  d: Deployment,
  allRSs: ReplicaSet[],
  newRS: ReplicaSet,
): number | undefined {
  const cur = newRS.spec.replicas ?? 0;
  const want = replicasOf(d);
  if (cur === want) return undefined;
  if (cur > want) return want;
  const n = newRSNewReplicas(d, allRSs, newRS);
  return n === cur ? undefined : n;
}

function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

/**
 * reconcileOldReplicaSets' decision: new spec.replicas per old ReplicaSet name (only the changed
 * ones). Step 1 (cleanupUnhealthyReplicas) removes unavailable old pods, step 2
 * (scaleDownOldReplicaSetsForRollingUpdate) scales down while available pods stay ≥ replicas − maxUnavailable.
 */
export function planOldReplicaSets(
  d: Deployment,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet | undefined,
): Map<string, number> {
  const out = new Map<string, number>();
  if (specReplicaSum(oldRSs) === 0) return out;
  const allPods = specReplicaSum(allRSs);
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = newRS ? (newRS.spec.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0) : 0;
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return out;
  const size = (rs: ReplicaSet) => out.get(rs.metadata.name!) ?? rs.spec.replicas ?? 0;

  // cleanupUnhealthyReplicas
  const sorted = [...oldRSs].sort(byCreation);
  let cleaned = 0;
  for (const rs of sorted) {
    if (cleaned >= maxScaledDown) break;
    const r = size(rs);
    const avail = rs.status?.availableReplicas ?? 0;
    if (r === 0 || r === avail) continue;
    const n = Math.min(maxScaledDown - cleaned, r - avail);
    out.set(rs.metadata.name!, r - n);
    cleaned += n;
  }

  // scaleDownOldReplicaSetsForRollingUpdate over the cleaned-up sets
  const available = availableSum(allRSs);
  if (available <= minAvailable) return out;
  const total = available - minAvailable;
  let scaled = 0;
  for (const rs of sorted) {
    if (scaled >= total) break;
    const r = size(rs);
    if (r === 0) continue;
    const n = Math.min(r, total - scaled);
    out.set(rs.metadata.name!, r - n);
    scaled += n;
  }
  return out;
}

export function revisionOf(rs: { metadata: { annotations?: Record<string, string> } }): number {
  const v = Number(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '0');
  return Number.isFinite(v) ? v : 0;
}

/**
 * EqualIgnoreHash: are two pod templates equal once the pod-template-hash label is dropped?
 * Compared as canonical JSON (sorted keys).
 */
export function templatesEqualIgnoringHash(a: unknown, b: unknown): boolean {
  return templateKey(a) === templateKey(b);
}

/** canonical JSON of a template without its hash label, cached per object (informer objects are immutable) */
const templateKeys = new WeakMap<object, string>();
export function templateKey(t: unknown): string {
  if (!t || typeof t !== 'object') return canonicalJson(t);
  let k = templateKeys.get(t);
  if (k === undefined) templateKeys.set(t, (k = canonicalJson(stripHash(t))));
  return k;
}

/**
 * templateKey of a Deployment's or ReplicaSet's template, cached by uid and generation: a status
 * update makes a new object but keeps the generation, so the template is not serialized again.
 * The cache belongs to one controller (uids are unique within one ApiServer only).
 */
export function objectTemplateKey(
  o: { metadata: { uid?: string; generation?: number }; spec: { template: unknown } },
  byGeneration: Map<string, string>,
): string {
  if (!o.metadata.uid || o.metadata.generation === undefined) return templateKey(o.spec.template);
  const id = `${o.metadata.uid}/${o.metadata.generation}`;
  let k = byGeneration.get(id);
  if (k === undefined) {
    if (byGeneration.size > 100_000) byGeneration.clear();
    byGeneration.set(id, (k = templateKey(o.spec.template)));
  }
  return k;
}

function stripHash(t: unknown): unknown {
  const c = structuredClone(t) as { metadata?: { labels?: Record<string, string> } };
  if (c?.metadata?.labels) {
    delete c.metadata.labels[POD_TEMPLATE_HASH_LABEL];
    if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
  }
  if (c?.metadata && Object.keys(c.metadata).length === 0) delete c.metadata;
  return c;
}

export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/**
 * ComputeHash: FNV-1a (32 bit) over the template (and collisionCount), encoded with
 * SafeEncodeString. Upstream hashes a go-spew dump of the Go struct, which cannot be reproduced
 * byte for byte; this hash is stable and has the same shape (≤ 10 chars of [bcdfghjklmnpqrstvwxz2456789]).
 */
export function computeTemplateHash(template: unknown, collisionCount?: number): string {
  const s = canonicalJson(stripHash(template)) + (collisionCount ? `#${collisionCount}` : '');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const dec = String(h >>> 0);
  const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; i < dec.length; i++) out += ALPHANUMS[dec.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

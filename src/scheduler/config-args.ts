/**
 * Plugin args validation at configuration parse time, as upstream's
 * pkg/scheduler/apis/config/validation/validation_pluginargs.go (v1.34) words it, after the v1
 * defaults (apis/config/v1/defaults.go) are applied: every error names its full field path,
 * `profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight`, so a bad weight is blamed
 * on the plugin whose args hold it — never on whichever plugin happens to be built first.
 *
 * Upstream quirks kept: NodeResourcesFit's RequestedToCapacityRatio shape is reported under
 * `scoringStrategy.shape` (not `…requestedToCapacityRatio.shape`); a resource weight of 0 is
 * defaulted to 1 before validation; BalancedAllocation resource weights must be exactly 1.
 */
import {
  type FieldError,
  duplicate,
  forbiddenField,
  invalidValue,
  notSupported,
  required,
} from '../api/field.js';
import { isQualifiedName } from '../api/validation-names.js';

type Args = Record<string, unknown>;

const isObj = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** ValidateLabelName */
function labelName(v: unknown, p: string, out: FieldError[]): void {
  if (typeof v !== 'string') out.push(invalidValue(p, v, 'must be a string'));
  else for (const m of isQualifiedName(v)) out.push(invalidValue(p, v, m));
}

/** a list field: undefined/null → [], anything else than a list → an error and [] */
function list(v: unknown, p: string, out: FieldError[]): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    out.push(invalidValue(p, v, 'must be a list'));
    return [];
  }
  return v;
}

/** an integer field with a default */
function int(v: unknown, def: number, p: string, out: FieldError[]): number | undefined {
  if (v === undefined || v === null) return def;
  if (!isInt(v)) {
    out.push(invalidValue(p, v, 'must be an integer'));
    return undefined;
  }
  return v;
}

/** validateFunctionShape */
function functionShape(shape: unknown[], p: string, out: FieldError[]): void {
  if (shape.length === 0) {
    out.push(required(p, 'at least one point must be specified'));
    return;
  }
  const pts = shape.map((s) => (isObj(s) ? s : {}));
  for (let i = 1; i < pts.length; i++) {
    const [a, b] = [pts[i - 1]!.utilization, pts[i]!.utilization];
    if (isInt(a) && isInt(b) && a >= b) {
      out.push(invalidValue(`${p}[${i}].utilization`, b, 'values must be sorted in increasing order'));
      break;
    }
  }
  pts.forEach((pt, i) => {
    const u = pt.utilization;
    const s = pt.score;
    if (!isInt(u) || u < 0 || u > 100)
      out.push(invalidValue(`${p}[${i}].utilization`, u, 'not in valid range [0, 100]'));
    if (!isInt(s) || s < 0 || s > 10)
      out.push(invalidValue(`${p}[${i}].score`, s, 'not in valid range [0, 10]'));
  });
}

/** validateResources (weights after the v1 default 0 → 1) */
function resources(rs: unknown[], p: string, out: FieldError[]): void {
  rs.forEach((r, i) => {
    const o = isObj(r) ? r : {};
    const w = o.weight === undefined || o.weight === 0 ? 1 : o.weight;
    if (!isInt(w) || w <= 0 || w > 100)
      out.push(
        invalidValue(
          `${p}[${i}].weight`,
          w,
          `resource weight of ${String(o.name)} not in valid range (0, 100]`,
        ),
      );
  });
}

const SCORING_TYPES = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];

/** ValidateNodeResourcesFitArgs */
function nodeResourcesFit(a: Args, p: string, out: FieldError[]): void {
  list(a.ignoredResources, `${p}.ignoredResources`, out).forEach((r, i) =>
    labelName(r, `${p}.ignoredResources[${i}]`, out),
  );
  list(a.ignoredResourceGroups, `${p}.ignoredResourceGroups`, out).forEach((g, i) => {
    const gp = `${p}.ignoredResourceGroups[${i}]`;
    if (typeof g === 'string' && g.includes('/'))
      out.push(invalidValue(gp, g, "resource group name can't contain '/'"));
    labelName(g, gp, out);
  });
  // kubesim does not model ignored resources: refused here, with their paths, rather than ignored
  if (Array.isArray(a.ignoredResources) && a.ignoredResources.length > 0)
    out.push(forbiddenField(`${p}.ignoredResources`, 'not supported by kubesim'));
  if (Array.isArray(a.ignoredResourceGroups) && a.ignoredResourceGroups.length > 0)
    out.push(forbiddenField(`${p}.ignoredResourceGroups`, 'not supported by kubesim'));
  const ss = a.scoringStrategy;
  if (ss === undefined || ss === null) return;
  const sp = `${p}.scoringStrategy`;
  if (!isObj(ss)) {
    out.push(invalidValue(sp, ss, 'must be an object'));
    return;
  }
  if (typeof ss.type !== 'string' || !SCORING_TYPES.includes(ss.type))
    out.push(notSupported(`${sp}.type`, ss.type ?? '', SCORING_TYPES));
  resources(list(ss.resources, `${sp}.resources`, out), `${sp}.resources`, out);
  const rtcr = ss.requestedToCapacityRatio;
  if (rtcr !== undefined && rtcr !== null) {
    const shape = isObj(rtcr) ? list(rtcr.shape, `${sp}.requestedToCapacityRatio.shape`, out) : [];
    functionShape(shape, `${sp}.shape`, out);
  } else if (ss.type === 'RequestedToCapacityRatio')
    out.push(required(`${sp}.requestedToCapacityRatio`, 'RequestedToCapacityRatio needs a shape'));
}

/** ValidateNodeResourcesBalancedAllocationArgs */
function balancedAllocation(a: Args, p: string, out: FieldError[]): void {
  const seen = new Set<unknown>();
  list(a.resources, `${p}.resources`, out).forEach((r, i) => {
    const o = isObj(r) ? r : {};
    if (seen.has(o.name)) out.push(duplicate(`${p}.resources[${i}].name`, o.name));
    else seen.add(o.name);
    const w = o.weight === undefined || o.weight === 0 ? 1 : o.weight;
    if (w !== 1) out.push(invalidValue(`${p}.resources[${i}].weight`, w, 'must be 1'));
  });
}

/** ValidateDefaultPreemptionArgs (defaults 10 % and 100) */
function defaultPreemption(a: Args, p: string, out: FieldError[]): void {
  const pp = `${p}.minCandidateNodesPercentage`;
  const ap = `${p}.minCandidateNodesAbsolute`;
  const pct = int(a.minCandidateNodesPercentage, 10, pp, out);
  const abs = int(a.minCandidateNodesAbsolute, 100, ap, out);
  if (pct !== undefined && (pct < 0 || pct > 100))
    out.push(invalidValue(pp, pct, 'not in valid range [0, 100]'));
  if (abs !== undefined && abs < 0) out.push(invalidValue(ap, abs, 'not in valid range [0, inf)'));
  if (pct === 0 && abs === 0)
    out.push(
      invalidValue(pp, pct, 'cannot be zero at the same time as minCandidateNodesAbsolute'),
      invalidValue(ap, abs, 'cannot be zero at the same time as minCandidateNodesPercentage'),
    );
}

/** ValidateInterPodAffinityArgs (default weight 1) */
function interPodAffinity(a: Args, p: string, out: FieldError[]): void {
  const wp = `${p}.hardPodAffinityWeight`;
  const w = int(a.hardPodAffinityWeight, 1, wp, out);
  if (w !== undefined && (w < 0 || w > 100)) out.push(invalidValue(wp, w, 'not in valid range [0, 100]'));
}

const WHEN = ['DoNotSchedule', 'ScheduleAnyway'];

/** ValidatePodTopologySpreadArgs (defaultingType defaults to List with constraints, else System) */
function podTopologySpread(a: Args, p: string, out: FieldError[]): void {
  const cp = `${p}.defaultConstraints`;
  const cs = list(a.defaultConstraints, cp, out);
  const type = a.defaultingType ?? (cs.length > 0 ? 'List' : 'System');
  if (type !== 'System' && type !== 'List')
    out.push(notSupported(`${p}.defaultingType`, type, ['System', 'List']));
  else if (type === 'System' && cs.length > 0)
    out.push(invalidValue(`${p}.defaultingType`, type, 'when .defaultConstraints are not empty'));
  cs.forEach((c, i) => {
    const o = isObj(c) ? c : {};
    const ip = `${cp}[${i}]`;
    if (!isInt(o.maxSkew) || o.maxSkew <= 0)
      out.push(invalidValue(`${ip}.maxSkew`, o.maxSkew ?? 0, 'not in valid range (0, inf)'));
    if (!o.topologyKey) out.push(required(`${ip}.topologyKey`, 'can not be empty'));
    else labelName(o.topologyKey, `${ip}.topologyKey`, out);
    if (!o.whenUnsatisfiable) out.push(required(`${ip}.whenUnsatisfiable`, 'can not be empty'));
    else if (!WHEN.includes(o.whenUnsatisfiable as string))
      out.push(notSupported(`${ip}.whenUnsatisfiable`, o.whenUnsatisfiable, WHEN));
    if (o.labelSelector !== undefined && o.labelSelector !== null)
      out.push(
        forbiddenField(
          `${ip}.labelSelector`,
          'constraint must not define a selector, as they deduced for each pod',
        ),
      );
    for (let j = 0; j < i; j++) {
      const other = isObj(cs[j]) ? (cs[j] as Args) : {};
      if (other.topologyKey === o.topologyKey && other.whenUnsatisfiable === o.whenUnsatisfiable) {
        out.push(duplicate(ip, `{${String(o.topologyKey)}, ${String(o.whenUnsatisfiable)}}`));
        break;
      }
    }
  });
}

/** ValidateNodeAffinityArgs: kubesim does not model addedAffinity, so any is refused here */
function nodeAffinity(a: Args, p: string, out: FieldError[]): void {
  if (a.addedAffinity !== undefined && a.addedAffinity !== null)
    out.push(forbiddenField(`${p}.addedAffinity`, 'not supported by kubesim'));
}

/** ValidateVolumeBindingArgs (the StorageCapacityScoring shape is not modelled) */
function volumeBinding(a: Args, p: string, out: FieldError[]): void {
  const bp = `${p}.bindTimeoutSeconds`;
  const t = int(a.bindTimeoutSeconds, 600, bp, out);
  if (t !== undefined && t < 0)
    out.push(invalidValue(bp, t, 'invalid BindTimeoutSeconds, should not be a negative value'));
}

const VALIDATORS: Readonly<Record<string, (a: Args, p: string, out: FieldError[]) => void>> = {
  DefaultPreemption: defaultPreemption,
  InterPodAffinity: interPodAffinity,
  NodeAffinity: nodeAffinity,
  NodeResourcesBalancedAllocation: balancedAllocation,
  NodeResourcesFit: nodeResourcesFit,
  PodTopologySpread: podTopologySpread,
  VolumeBinding: volumeBinding,
};

/** The field errors of one plugin's args (`path` is `profiles[i].pluginConfig[j].args`). */
export function validatePluginArgs(name: string, args: Args, path: string): FieldError[] {
  const out: FieldError[] = [];
  VALIDATORS[name]?.(args, path, out);
  return out;
}

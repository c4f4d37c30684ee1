/**
 * Label selector matching as apimachinery's metav1.LabelSelectorAsSelector: matchLabels and
 * matchExpressions are ANDed; an empty selector ({}) matches everything, a missing one nothing.
 */
import type { LabelSelector, Labels } from '../api/types.js';

/** A compiled selector: a predicate over labels. */
export type LabelMatcher = (labels: Labels | undefined) => boolean;

const NOTHING: LabelMatcher = () => false;
const EVERYTHING: LabelMatcher = () => true;

/** Compile a LabelSelector once; throws on an invalid operator (as LabelSelectorAsSelector errors). */
export function compileLabelSelector(sel: LabelSelector | undefined | null): LabelMatcher {
  if (!sel) return NOTHING;
  const ml = Object.entries(sel.matchLabels ?? {});
  const me = sel.matchExpressions ?? [];
  if (ml.length === 0 && me.length === 0) return EVERYTHING;
  for (const r of me) {
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(r.operator)) {
      throw new Error(`invalid label selector operator "${r.operator}" for key "${r.key}"`);
    }
  }
  return (labels) => {
    const l = labels ?? {};
    for (const [k, v] of ml) if (l[k] !== v) return false;
    for (const r of me) {
      const has = Object.hasOwn(l, r.key);
      switch (r.operator) {
        case 'In':
          if (!has || !(r.values ?? []).includes(l[r.key])) return false;
          break;
        case 'NotIn':
          if (has && (r.values ?? []).includes(l[r.key])) return false;
          break;
        case 'Exists':
          if (!has) return false;
          break;
        case 'DoesNotExist':
          if (has) return false;
          break;
      }
    }
    return true;
  };
}

/** Does a map selector (Service.spec.selector) match? An empty/absent map selects nothing for Services. */
export function selectorMapMatches(selector: Labels | undefined, labels: Labels | undefined): boolean {
  if (!selector) return false;
  const keys = Object.keys(selector);
  if (keys.length === 0) return false;
  const l = labels ?? {};
  for (const k of keys) if (l[k] !== selector[k]) return false;
  return true;
}

/** Render matchLabels as the string form list/watch take ("a=b,c=d"). */
export function selectorString(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/**
 * Label selectors: one matching rule for every form a selector takes — the string form of the
 * `labelSelector` query parameter (labels.Parse), a LabelSelector object (`spec.selector`, affinity
 * terms, topology spread constraints: metav1.LabelSelectorAsSelector) and a plain label set
 * (labels.SelectorFromSet). All build the same {@link Selector}, whose requirements match as
 * upstream's labels.Requirement.Matches.
 *
 *   "app=web,tier notin (db)"                          matches {app: web}            (no tier label)
 *   {matchLabels: {app: web}}                          matches {app: web, pod: x}
 *   {matchExpressions: [{key: gpu, operator: Exists}]} does not match {app: web}
 *   undefined (a nil *LabelSelector)                   matches nothing;  {} matches everything
 *
 * upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go, pkg/apis/meta/v1/helpers.go.
 * A compiled selector allocates nothing per label set it tests.
 */
import { badRequest } from './errors.js';
import type { LabelSelector, Labels } from './types.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';

/** selection.Operator: `exists` (the bare key), `!` (DoesNotExist), `gt`/`lt` from `>`/`<`. */
export type LabelOp = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/**
 * strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in range; else undefined. Gt/Lt
 * requirements (label selectors and node affinity alike) compare label values through it.
 */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** labels.Selector: requirements ANDed, sorted by key as upstream sorts them. */
export class Selector {
  /** labels.Nothing(): what a nil *metav1.LabelSelector converts to */
  static readonly NOTHING = new Selector([], true);
  /** labels.Everything() */
  static readonly EVERYTHING = new Selector([]);

  readonly requirements: readonly LabelRequirement[];
  /**
   * The `=` and `in` requirements (matchLabels included): every matching label set has one of each
   * requirement's values, so an index by label value yields a superset of the matches.
   */
  readonly inRequirements: readonly LabelRequirement[];
  /** value sets of in/notin requirements with several values (a Set beats includes() there) */
  private readonly sets: (ReadonlySet<string> | undefined)[];

  constructor(
    requirements: readonly LabelRequirement[],
    /** true only for {@link Selector.NOTHING} */
    readonly nothing = false,
  ) {
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    // values deduplicated: a caller visits one disjoint set of objects per value
    this.inRequirements = this.requirements
      .filter((r) => r.op === '=' || r.op === 'in')
      .map((r) =>
        new Set(r.values).size === r.values.length ? r : { ...r, values: [...new Set(r.values)] },
      );
    this.sets = this.requirements.map((r) => (r.values.length > 4 ? new Set(r.values) : undefined));
  }

  /** Selector.Empty(): matches everything */
  get empty(): boolean {
    return !this.nothing && this.requirements.length === 0;
  }

  matches(labels: Labels | undefined): boolean {
    if (this.nothing) return false;
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) if (!this.requirementMatches(i, labels)) return false;
    return true;
  }

  /** labels.Requirement.Matches: `!=` and `notin` match a set without the key; the rest need it. */
  private requirementMatches(i: number, labels: Labels | undefined): boolean {
    const r = this.requirements[i]!;
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case '=':
        return has && labels![r.key] === r.values[0];
      case '!=':
        return !has || labels![r.key] !== r.values[0];
      case 'in':
        return has && this.hasValue(i, labels![r.key]!);
      case 'notin':
        return !has || !this.hasValue(i, labels![r.key]!);
      case 'gt':
      case 'lt': {
        if (!has || r.values.length !== 1) return false;
        const n = parseInt64(labels![r.key]!);
        const bound = parseInt64(r.values[0]!);
        if (n === undefined || bound === undefined) return false;
        return r.op === 'gt' ? n > bound : n < bound;
      }
    }
  }

  private hasValue(i: number, v: string): boolean {
    const set = this.sets[i];
    return set ? set.has(v) : this.requirements[i]!.values.includes(v);
  }

  private cachedKey: string | undefined;

  /**
   * A text that two selectors share exactly when they have the same requirements (values in
   * order): a cache key for counts of matching objects. Unlike {@link toString} it cannot collide
   * when a value contains `,` or `=`.
   */
  get key(): string {
    return (this.cachedKey ??= this.nothing
      ? '!nothing'
      : JSON.stringify(this.requirements.map((r) => [r.key, r.op, r.values])));
  }

  /** Selector.String(): the string form labels.Parse reads back */
  toString(): string {
    return this.requirements
      .map((r) => {
        switch (r.op) {
          case 'exists':
            return r.key;
          case '!':
            return `!${r.key}`;
          case 'in':
          case 'notin':
            return `${r.key} ${r.op} (${[...r.values].sort().join(',')})`; // Requirement.String sorts values
          case 'gt':
            return `${r.key}>${r.values[0]}`;
          case 'lt':
            return `${r.key}<${r.values[0]}`;
          default:
            return `${r.key}${r.op}${r.values[0]}`;
        }
      })
      .join(',');
  }
}

// ---------------------------------------------------------------- LabelSelector objects

/** A LabelSelector the API server would have rejected; callers turn it into their own error form. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/** Go's %#v of a []string, as field.Invalid prints a bad values list. */
function goStrings(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

const STRUCT_OPS: Record<string, LabelOp> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: undefined/null → matches nothing; `{}` → matches everything;
 * matchLabels and matchExpressions are ANDed.
 * With `validValues`, every value must be a valid label value, as labels.NewRequirement's
 * validateLabelValue checks (the scheduler's affinity terms: framework.NewPodInfo); the other
 * callers read objects the API server validated already.
 * @throws SelectorError with upstream's text for an unknown operator or a values list the
 *   operator does not allow (labels.NewRequirement)
 */
export function labelSelectorAsSelector(
  sel: LabelSelector | undefined | null,
  opts: { validValues?: boolean } = {},
): Selector {
  if (sel === undefined || sel === null) return Selector.NOTHING;
  const reqs: LabelRequirement[] = [];
  for (const k in sel.matchLabels ?? {})
    if (Object.hasOwn(sel.matchLabels!, k))
      reqs.push({ key: k, op: '=', values: [String(sel.matchLabels![k])] });
  for (const e of sel.matchExpressions ?? []) {
    const op = Object.hasOwn(STRUCT_OPS, e.operator) ? STRUCT_OPS[e.operator] : undefined;
    if (op === undefined)
      throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    const values = e.values ?? [];
    if ((op === 'in' || op === 'notin') && values.length === 0)
      throw new SelectorError(
        `values: Invalid value: ${goStrings(values)}: for 'in', 'notin' operators, values set can't be empty`,
      );
    if ((op === 'exists' || op === '!') && values.length > 0)
      throw new SelectorError(
        `values: Invalid value: ${goStrings(values)}: values set must be empty for exists and does not exist`,
      );
    reqs.push({ key: e.key, op, values: [...values] });
  }
  if (opts.validValues) for (const r of reqs) checkValues(r);
  return reqs.length === 0 ? Selector.EVERYTHING : new Selector(reqs);
}

/**
 * labels.SelectorFromSet(set).Matches(labels): every key of `set` carries its value. An empty set
 * matches everything (callers with "no selector selects nothing" semantics check that first).
 */
export function matchesSet(set: Labels, labels: Labels | undefined): boolean {
  for (const k in set)
    if (Object.hasOwn(set, k) && (labels === undefined || labels[k] !== set[k])) return false;
  return true;
}

// ---------------------------------------------------------------- the string form (labels.Parse)

type Tok = {
  t: 'id' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | 'in' | 'notin' | '>' | '<' | 'end';
  v: string;
};

function lexLabels(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '!' && s[i + 1] === '=') {
      out.push({ t: '!=', v: '!=' });
      i += 2;
    } else if (c === '=' && s[i + 1] === '=') {
      out.push({ t: '==', v: '==' });
      i += 2;
    } else if (c === '!' || c === '=' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<') {
      out.push({ t: c, v: c });
      i++;
    } else {
      let j = i;
      while (j < s.length && !' \t\n\r!=(),<>'.includes(s[j]!)) j++;
      const word = s.slice(i, j);
      out.push(
        word === 'in'
          ? { t: 'in', v: word }
          : word === 'notin'
            ? { t: 'notin', v: word }
            : { t: 'id', v: word },
      );
      i = j;
    }
  }
  out.push({ t: 'end', v: '' });
  return out;
}

/** In key and value positions the keywords `in` / `notin` are plain identifiers (Parser.consume(Values)). */
function asValue(t: Tok): Tok {
  return t.t === 'in' || t.t === 'notin' ? { t: 'id', v: t.v } : t;
}

function parseError(msg: string) {
  return badRequest(`unable to parse requirement: ${msg}`);
}

function checkKey(key: string): void {
  const errs = isQualifiedName(key);
  if (errs.length) throw parseError(`<nil>: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}`);
}

function checkValue(key: string, value: string): void {
  const errs = isValidLabelValue(value);
  if (errs.length)
    throw parseError(`values[0][${key}]: Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}`);
}

/**
 * Parse a label selector string (labels.Parse):
 * `app=web`, `app==web`, `tier!=db`, `env in (prod,staging)`, `env notin (dev)`, `gpu` (exists),
 * `!gpu` (does not exist), `replicas>3`, `replicas<3`, ANDed by `,`.
 * @throws ApiError 400 BadRequest on a malformed selector
 */
export function parseLabelSelector(s: string | undefined): Selector {
  if (!s || !s.trim()) return Selector.EVERYTHING;
  const toks = lexLabels(s);
  let p = 0;
  const reqs: LabelRequirement[] = [];
  const expect = (what: string): never => {
    const t = toks[p]!;
    throw badRequest(`found '${t.t === 'end' ? '' : t.v}', expected: ${what}`);
  };
  for (;;) {
    let t = asValue(toks[p]!);
    if (t.t === '!') {
      p++;
      t = asValue(toks[p]!);
      if (t.t !== 'id') expect('identifier');
      checkKey(t.v);
      reqs.push({ key: t.v, op: '!', values: [] });
      p++;
    } else if (t.t === 'id') {
      const key = t.v;
      checkKey(key);
      p++;
      const op = toks[p]!;
      if (op.t === ',' || op.t === 'end') {
        reqs.push({ key, op: 'exists', values: [] });
      } else if (op.t === '=' || op.t === '==' || op.t === '!=' || op.t === '>' || op.t === '<') {
        p++;
        const v = asValue(toks[p]!);
        let value = '';
        if (v.t === 'id') {
          value = v.v;
          p++;
        } else if (v.t !== ',' && v.t !== 'end') {
          expect('identifier');
        }
        if (op.t === '>' || op.t === '<') {
          if (!/^-?[0-9]+$/.test(value)) {
            throw parseError(
              `values[0]: Invalid value: ${JSON.stringify(value)}: for 'Gt', 'Lt' operators, the value must be an integer`,
            );
          }
        } else checkValue(key, value);
        reqs.push({
          key,
          op: op.t === '>' ? 'gt' : op.t === '<' ? 'lt' : op.t === '!=' ? '!=' : '=',
          values: [value],
        });
      } else if (op.t === 'in' || op.t === 'notin') {
        p++;
        if (toks[p]!.t !== '(') expect("'('");
        p++;
        const values: string[] = [];
        for (;;) {
          const v = asValue(toks[p]!);
          if (v.t === ')') {
            p++;
            break;
          }
          if (v.t === 'id') {
            values.push(v.v);
            p++;
          } else if (v.t === ',') {
            // empty value between commas is the empty string, as upstream
            if (toks[p - 1]!.t === '(' || toks[p - 1]!.t === ',') values.push('');
          } else expect("',', ')' or identifier");
          const n = toks[p]!;
          if (n.t === ',') {
            p++;
            if (toks[p]!.t === ')') values.push('');
          } else if (n.t !== ')') expect("',' or ')'");
        }
        if (values.length === 0)
          throw parseError(
            `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
          );
        for (const v of values) checkValue(key, v);
        reqs.push({ key, op: op.t, values: [...new Set(values)].sort() });
      } else {
        expect("'=', '!=', '==', 'in', notin'");
      }
    } else {
      expect('identifier');
    }
    const sep = toks[p]!;
    if (sep.t === 'end') break;
    if (sep.t !== ',') expect("','");
    p++;
    if (toks[p]!.t === 'end') expect('identifier');
  }
  return new Selector(reqs);
}

/** labels.NewRequirement's validateLabelValue over a requirement's values (field path values[i][key]) */
function checkValues(r: LabelRequirement): void {
  const errs: string[] = [];
  r.values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0)
      errs.push(`values[${i}][${r.key}]: Invalid value: ${JSON.stringify(v)}: ${msgs.join('; ')}`);
  });
  // (field.ErrorList.ToAggregate: one error prints alone, several as [a, b])
  if (errs.length > 0) throw new SelectorError(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
}

/**
 * Label and field selectors in their string form, parsed as the apiserver parses the
 * `labelSelector` / `fieldSelector` query parameters (k8s.io/apimachinery/pkg/labels and
 * pkg/fields):
 *
 *   labels: `app=web`, `app==web`, `tier!=db`, `env in (prod,staging)`, `env notin (dev)`,
 *           `gpu` (exists), `!gpu` (does not exist), `replicas>3`, `replicas<3`, ANDed by `,`
 *   fields: `metadata.name=x`, `spec.nodeName==n1`, `status.phase!=Running`, ANDed by `,`
 *           (`\,` `\=` `\\` escape), only on the fields each resource supports
 *
 * Parse errors are BadRequest ApiErrors. `!=` and `notin` match objects without the label, as
 * upstream. A compiled selector allocates nothing per object it tests.
 */
import { badRequest } from './errors.js';
import type { KubeObject, Labels } from './types.js';
import { isQualifiedName, isValidLabelValue } from './validation-names.js';

export type LabelOp = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

/** A parsed label selector: requirements ANDed. Empty = everything. */
export class ParsedLabelSelector {
  constructor(readonly requirements: LabelRequirement[]) {}

  matches(labels: Labels | undefined): boolean {
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      const has = labels !== undefined && Object.hasOwn(labels, r.key);
      const v = has ? labels![r.key]! : '';
      switch (r.op) {
        case 'exists':
          if (!has) return false;
          break;
        case '!':
          if (has) return false;
          break;
        case '=':
          if (!has || v !== r.values[0]) return false;
          break;
        case 'in':
          if (!has || !r.values.includes(v)) return false;
          break;
        case '!=':
          if (has && v === r.values[0]) return false;
          break;
        case 'notin':
          if (has && r.values.includes(v)) return false;
          break;
        case 'gt':
        case 'lt': {
          if (!has || !/^-?[0-9]+$/.test(v)) return false;
          const n = Number(v);
          const bound = Number(r.values[0]);
          if (r.op === 'gt' ? !(n > bound) : !(n < bound)) return false;
          break;
        }
      }
    }
    return true;
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

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
            return `${r.key} ${r.op} (${r.values.join(',')})`;
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

function selectorError(msg: string) {
  return badRequest(`unable to parse requirement: ${msg}`);
}

function checkKey(key: string): void {
  const errs = isQualifiedName(key);
  if (errs.length) throw selectorError(`<nil>: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}`);
}

function checkValue(key: string, value: string): void {
  const errs = isValidLabelValue(value);
  if (errs.length)
    throw selectorError(`values[0][${key}]: Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}`);
}

/**
 * Parse a label selector string (labels.Parse).
 * @throws ApiError 400 BadRequest on a malformed selector
 */
export function parseLabelSelector(s: string | undefined): ParsedLabelSelector {
  if (!s || !s.trim()) return new ParsedLabelSelector([]);
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
            throw selectorError(
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
          throw selectorError(
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
  return new ParsedLabelSelector(reqs);
}

// ---------------------------------------------------------------- fields

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Field getters per resource: what `fieldSelector` may name (upstream's *ToSelectableFields). */
const COMMON_FIELDS: Record<string, (o: any) => string> = {
  'metadata.name': (o) => o.metadata?.name ?? '',
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

const FIELDS: Record<string, Record<string, (o: any) => string>> = {
  pods: {
    'spec.nodeName': (o) => o.spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => o.spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => o.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => o.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(o.spec?.hostNetwork ?? false),
    'status.phase': (o) => o.status?.phase ?? '',
    'status.podIP': (o) => o.status?.podIP ?? '',
    'status.nominatedNodeName': (o) => o.status?.nominatedNodeName ?? '',
  },
  nodes: { 'spec.unschedulable': (o) => String(o.spec?.unschedulable ?? false) },
  namespaces: { 'status.phase': (o) => o.status?.phase ?? '' },
  replicasets: { 'status.replicas': (o) => String(o.status?.replicas ?? 0) },
  events: {
    'involvedObject.kind': (o) => o.involvedObject?.kind ?? '',
    'involvedObject.namespace': (o) => o.involvedObject?.namespace ?? '',
    'involvedObject.name': (o) => o.involvedObject?.name ?? '',
    'involvedObject.uid': (o) => o.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (o) => o.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (o) => o.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (o) => o.involvedObject?.fieldPath ?? '',
    reason: (o) => o.reason ?? '',
    reportingComponent: (o) => o.reportingComponent ?? '',
    source: (o) => o.source?.component ?? '',
    type: (o) => o.type ?? '',
  },
};

/** A parsed field selector bound to one resource's selectable fields. */
export class ParsedFieldSelector {
  private readonly getters: ((o: unknown) => string)[];
  constructor(
    readonly requirements: FieldRequirement[],
    resource: string,
  ) {
    this.getters = requirements.map((r) => {
      const g = COMMON_FIELDS[r.field] ?? FIELDS[resource]?.[r.field];
      if (!g) throw badRequest(`field label not supported: ${r.field}`);
      return g;
    });
  }

  matches(obj: KubeObject): boolean {
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      const v = this.getters[i]!(obj);
      if (r.op === '=' ? v !== r.value : v === r.value) return false;
    }
    return true;
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** The value an `=` requirement pins a field to (e.g. spec.nodeName for a kubelet's watch). */
  exact(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.op === '=')?.value;
  }
}

/** Split on unescaped commas (fields.splitTerms). */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === ',') {
      terms.push(cur);
      cur = '';
    } else cur += c;
  }
  terms.push(cur);
  return terms;
}

function unescape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n === '\\' || n === ',' || n === '=') {
        out += n;
        i++;
        continue;
      }
      throw badRequest(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    // unescaped , and = are not allowed in field selector values (fields.UnescapeValue)
    if (c === '=' || c === ',')
      throw badRequest(`invalid field selector: unescaped character in value: ${c}`);
    out += c;
  }
  return out;
}

/** The first operator in a term, trying `!=`, `==`, `=` at each position (fields.splitTerm). */
function findOp(term: string): { at: number; op: '=' | '==' | '!=' } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith('!=', i)) return { at: i, op: '!=' };
    if (term.startsWith('==', i)) return { at: i, op: '==' };
    if (term[i] === '=') return { at: i, op: '=' };
  }
  return undefined;
}

/**
 * Parse a field selector for a resource (fields.ParseSelector + the resource's selectable fields).
 * @throws ApiError 400 on malformed input or an unsupported field
 */
export function parseFieldSelector(s: string | undefined, resource: string): ParsedFieldSelector {
  if (!s || !s.trim()) return new ParsedFieldSelector([], resource);
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(s)) {
    if (term === '') continue;
    const op = findOp(term);
    if (!op) throw badRequest(`invalid field selector: invalid selector: '${s}'; can't understand '${term}'`);
    const field = term.slice(0, op.at);
    const value = unescape(term.slice(op.at + op.op.length));
    reqs.push({ field, op: op.op === '!=' ? '!=' : '=', value });
  }
  return new ParsedFieldSelector(reqs, resource);
}

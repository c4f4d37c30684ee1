/**
 * Field selectors in their string form, parsed as the apiserver parses the `fieldSelector` query
 * parameter (k8s.io/apimachinery/pkg/fields): `metadata.name=x`, `spec.nodeName==n1`,
 * `status.phase!=Running`, ANDed by `,` (`\,` `\=` `\\` escape), only on the fields each
 * resource supports. Parse errors are BadRequest ApiErrors. Label selectors: label-selector.ts.
 */
import { badRequest } from './errors.js';
import type { KubeObject } from './types.js';

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

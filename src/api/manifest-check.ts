/**
 * Validating loaded manifests as the apiserver would validate them on create: defaults are
 * applied to a copy (as the apiserver defaults before validating), then validation.ts runs, and
 * every error is prefixed with where it came from:
 *
 *   pods.yaml:14: Pod "web-0": spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match …
 *
 * Objects without apiVersion/kind or of kinds kubesim does not serve get one clear error naming
 * what was found.
 */
import { applyDefaults } from './defaults.js';
import { checkCustomResource } from './crd-schema.js';
import { type FieldError, unknownField } from './field.js';
import {
  type LoadedObject,
  type LoadOptions,
  loadManifests,
  type ManifestSource,
  parseManifests,
} from './manifest.js';
import { registerCRD } from './custom-kinds.js';
import { BUILTIN_REGISTRY, KindRegistry, noMatchesMessage, splitApiVersion } from './registry.js';
import type { KubeObject } from './types.js';
import { LIMITS } from '../util/limits.js';
import { validateObject, type UnknownFieldPolicy } from './validation.js';

export interface ObjectReport {
  source: ManifestSource;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  ok: boolean;
  /** `file:line: Kind "name": field: message` */
  errors: string[];
  warnings: string[];
}

export interface CheckOptions {
  /** unknown fields as errors (Strict, default — kubectl's --validate=strict), warnings, or ignored */
  unknownFields?: UnknownFieldPolicy;
}

function where(src: ManifestSource, line: number): string {
  return `${src.file}:${line}`;
}

/**
 * Validate one loaded object; `kinds` are the kinds it may use (default: the built-ins; see
 * {@link checkManifests} for CRDs in the same input).
 */
export function checkObject(
  loaded: LoadedObject,
  opts: CheckOptions = {},
  kinds: KindRegistry = BUILTIN_REGISTRY,
  crds?: ReadonlyMap<string, Record<string, any>>,
): ObjectReport {
  const obj = loaded.object as KubeObject & Record<string, any>;
  const src = loaded.source;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const name =
    typeof obj.metadata?.name === 'string'
      ? obj.metadata.name
      : obj.metadata?.generateName
        ? `${obj.metadata.generateName}*`
        : '';
  const report: ObjectReport = { source: src, apiVersion, kind, name, ok: true, errors: [], warnings: [] };
  if (typeof obj.metadata?.namespace === 'string') report.namespace = obj.metadata.namespace;
  const label = `${kind || '<no kind>'} "${name}"`;

  const missing: string[] = [];
  if (!apiVersion) missing.push('apiVersion not set');
  if (!kind) missing.push('kind not set');
  if (missing.length) {
    report.errors.push(`${where(src, src.line)}: ${label}: error validating data: [${missing.join(', ')}]`);
    report.ok = false;
    return report;
  }
  const info = kinds.lookupKind(apiVersion, kind);
  if (!info) {
    report.errors.push(`${where(src, src.line)}: ${label}: ${noMatchesMessage(kinds, apiVersion, kind)}`);
    report.ok = false;
    return report;
  }
  const copy = structuredClone(obj);
  applyDefaults(copy);
  const policy = opts.unknownFields ?? 'Strict';
  const errs: FieldError[] = validateObject(copy, info, { unknownFields: policy });
  if (info.crd)
    errs.push(
      ...customResourceErrors(copy, crds?.get(info.crd), splitApiVersion(apiVersion).version, policy),
    );
  // in file order (stable for errors on one line)
  const located = errs
    .map((e, i) => ({ e, i, line: loaded.lineOf(e.field) }))
    .sort((a, b) => a.line - b.line || a.i - b.i);
  for (const { e, line } of located) {
    const msg = `${where(src, line)}: ${label}: ${e.toString()}`;
    if (e.warning) report.warnings.push(msg);
    else report.errors.push(msg);
  }
  report.ok = report.errors.length === 0;
  return report;
}

/**
 * A custom resource against its CRD version's schema and validation rules, as kube-apiserver
 * checks it on create (crd-schema.ts, crd-cel.ts): type/enum/… errors, failed CEL rules, and the
 * fields the schema does not declare (errors under Strict, warnings under Warn).
 */
function customResourceErrors(
  obj: Record<string, any>,
  crd: Record<string, any> | undefined,
  version: string,
  policy: UnknownFieldPolicy,
): FieldError[] {
  const v = (crd?.spec?.versions ?? []).find((x: Record<string, any>) => x?.name === version);
  const checked = checkCustomResource(obj, v?.schema?.openAPIV3Schema);
  const unknown = policy === 'Ignore' ? [] : checked.pruned.map((f) => unknownField(f, policy === 'Warn'));
  return [...checked.errors, ...unknown];
}

/**
 * Validate every loaded object (in load order). CustomResourceDefinitions anywhere in the input
 * serve their kinds to every object, so custom resources may come before their CRD.
 */
export function checkManifests(objects: LoadedObject[], opts: CheckOptions = {}): ObjectReport[] {
  const kinds = kindsWithCRDs(objects);
  const crds = new Map<string, Record<string, any>>();
  for (const o of objects) {
    const obj = o.object as KubeObject & Record<string, any>;
    if (kinds.lookupKind(obj.apiVersion, obj.kind)?.kind === 'CustomResourceDefinition')
      crds.set(String(obj.metadata?.name ?? ''), obj);
  }
  return objects.map((o) => checkObject(o, opts, kinds, crds));
}

/** The built-in kinds plus those defined by the CRDs among `objects`. */
export function kindsWithCRDs(objects: LoadedObject[]): KindRegistry {
  const kinds = new KindRegistry();
  for (const o of objects) {
    const obj = o.object as KubeObject & Record<string, any>;
    if (kinds.lookupKind(obj.apiVersion, obj.kind)?.kind === 'CustomResourceDefinition')
      registerCRD(kinds, obj);
  }
  return kinds;
}

/** Most errors one InvalidObjectsError message shows (`kubesim validate` lists every one). */
const MAX_SHOWN = 20;

/**
 * Objects the apiserver would reject on create: every error as `file:line: Kind "name": field:
 * message`, one per line (the first {@link MAX_SHOWN}).
 */
export class InvalidObjectsError extends Error {
  constructor(readonly errors: string[]) {
    const shown = errors.slice(0, MAX_SHOWN);
    const more = errors.length - shown.length;
    super(shown.join('\n') + (more > 0 ? `\n… and ${more} more (kubesim validate lists every one)` : ''));
    this.name = 'InvalidObjectsError';
  }
}

/**
 * The one loader every command reads objects through: files loaded as `kubectl apply -f` reads
 * them (manifest.ts), then every object — used by the command or not — checked as `kubesim
 * validate` checks it: defaulting on a copy, then the apiserver's validation for its kind, with
 * the CustomResourceDefinitions of the input serving their kinds. The objects come back as given
 * (not defaulted), so what a command reads is what the file says.
 *
 * Field lines come from a second parse with YAML positions kept, only when something is invalid
 * (positions cost memory on large snapshots).
 * @throws ManifestError for a file that cannot be read or parsed; InvalidObjectsError naming every
 *   invalid object
 */
export async function loadValidManifests(
  paths: string[],
  opts: LoadOptions & CheckOptions = {},
): Promise<LoadedObject[]> {
  const positions = opts.fieldPositions === true || paths.includes('-');
  let objects = await loadManifests(paths, { ...opts, fieldPositions: positions });
  let errors = checkManifests(objects, opts).flatMap((r) => r.errors);
  if (errors.length && !positions) {
    objects = await loadManifests(paths, { ...opts, fieldPositions: true });
    errors = checkManifests(objects, opts).flatMap((r) => r.errors);
  }
  errors.push(...scaleErrors(objects));
  if (errors.length) throw new InvalidObjectsError(errors);
  return objects;
}

/** The kinds whose spec.replicas asks for that many pods. */
const REPLICATED = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'ReplicationController']);

/**
 * Workloads asking for more pods than LIMITS.pods (one, or all of the input together): valid for
 * the apiserver (replicas is an int32) but more than a simulation or a plan can create.
 */
function scaleErrors(objects: LoadedObject[]): string[] {
  const errors: string[] = [];
  let total = 0;
  for (const o of objects) {
    const obj = o.object as KubeObject & { spec?: { replicas?: unknown } };
    if (!REPLICATED.has(obj.kind) || typeof obj.spec?.replicas !== 'number') continue;
    total += obj.spec.replicas;
    const label = `${where(o.source, o.lineOf('spec.replicas'))}: ${obj.kind} "${obj.metadata?.name ?? ''}": spec.replicas`;
    if (obj.spec.replicas > LIMITS.pods)
      errors.push(
        `${label}: ${obj.spec.replicas} is above the limit of ${LIMITS.pods} pods (see "Limits" in the README)`,
      );
    else if (total > LIMITS.pods && errors.length === 0)
      errors.push(
        `${label}: the workloads up to this one ask for ${total} pods, above the limit of ${LIMITS.pods} (see "Limits" in the README)`,
      );
  }
  return errors;
}

/** {@link loadValidManifests} for text already read (`file` names it in messages). */
export function parseValidManifests(text: string, file: string, opts: CheckOptions = {}): LoadedObject[] {
  const objects = parseManifests(text, file, { fieldPositions: true });
  const errors = checkManifests(objects, opts).flatMap((r) => r.errors);
  errors.push(...scaleErrors(objects));
  if (errors.length) throw new InvalidObjectsError(errors);
  return objects;
}

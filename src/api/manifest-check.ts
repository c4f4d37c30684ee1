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
import type { FieldError } from './field.js';
import type { LoadedObject, ManifestSource } from './manifest.js';
import { RESOURCES, knownApiVersionsFor, lookupKind } from './registry.js';
import type { KubeObject } from './types.js';
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

/** Validate one loaded object. */
export function checkObject(loaded: LoadedObject, opts: CheckOptions = {}): ObjectReport {
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
  const info = lookupKind(apiVersion, kind);
  if (!info) {
    const known = knownApiVersionsFor(kind);
    const hint = known.length
      ? ` (${kind} is served as ${known.join(', ')})`
      : ` (kubesim serves ${RESOURCES.map((r) => `${r.apiVersion} ${r.kind}`).join(', ')})`;
    report.errors.push(
      `${where(src, src.line)}: ${label}: no matches for kind "${kind}" in version "${apiVersion}"${hint}`,
    );
    report.ok = false;
    return report;
  }
  const copy = structuredClone(obj);
  applyDefaults(copy);
  const errs: FieldError[] = validateObject(copy, info, { unknownFields: opts.unknownFields ?? 'Strict' });
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

/** Validate every loaded object (in load order). */
export function checkManifests(objects: LoadedObject[], opts: CheckOptions = {}): ObjectReport[] {
  return objects.map((o) => checkObject(o, opts));
}

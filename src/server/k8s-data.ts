/**
 * The upstream API definitions kubesim loads as data (data/k8s, see its README): the OpenAPI v2
 * document of the pinned release (`api/openapi-spec/swagger.json`, gzipped) and k8s.io/api's
 * `generated.proto` files. Found by walking up from this module, so the same code reads them from
 * src/ (tests) and from dist/src/ (the built and the packed CLI).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

let dataDir: string | undefined;

/** data/k8s of this package. */
export function k8sDataDir(): string {
  if (dataDir) return dataDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'data', 'k8s');
    if (existsSync(join(candidate, 'README.md'))) return (dataDir = candidate);
    const up = dirname(dir);
    if (up === dir)
      throw new Error('kubesim: data/k8s (the Kubernetes API definitions) is missing from the package');
    dir = up;
  }
}

/** A JSON schema of the OpenAPI v2 document (the fields kubesim reads). */
export interface Schema {
  type?: string;
  format?: string;
  description?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [k: string]: unknown;
}

export interface SwaggerDoc {
  swagger: string;
  info: object;
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, Schema>;
  [k: string]: unknown;
}

let swagger: SwaggerDoc | undefined;

/** The pinned release's OpenAPI v2 document (parsed once; callers must not modify it). */
export function upstreamSwagger(): SwaggerDoc {
  swagger ??= JSON.parse(
    gunzipSync(readFileSync(join(k8sDataDir(), 'openapi', 'swagger-v1.34.json.gz'))).toString('utf8'),
  ) as SwaggerDoc;
  return swagger;
}

let byGvk: Map<string, string> | undefined;

/** The definition name of a group/version/kind (`io.k8s.api.core.v1.Pod`), if upstream defines it. */
export function definitionOf(group: string, version: string, kind: string): string | undefined {
  if (!byGvk) {
    byGvk = new Map();
    for (const [name, s] of Object.entries(upstreamSwagger().definitions))
      for (const g of s['x-kubernetes-group-version-kind'] ?? [])
        if (!byGvk.has(`${g.group}/${g.version}/${g.kind}`))
          byGvk.set(`${g.group}/${g.version}/${g.kind}`, name);
  }
  return byGvk.get(`${group}/${version}/${kind}`);
}

/** `#/definitions/X` → X */
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * PATCH bodies by Content-Type (upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go):
 *
 *   application/json-patch+json            RFC 6902 operations (fast-json-patch)
 *   application/merge-patch+json           RFC 7386
 *   application/strategic-merge-patch+json strategic-merge.ts
 *   application/apply-patch+yaml           server-side apply (apply.ts)
 */
import jsonpatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest, invalid } from '../api/errors.js';
import { invalidValue } from '../api/field.js';
import type { ResourceInfo } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';
import { serverSideApply } from './apply.js';
import { PatchError, jsonMergePatch, strategicMergePatch } from './strategic-merge.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export function patchTypeOf(contentType: string | undefined): PatchType {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = TYPES[t];
  if (!type)
    throw new ApiError(
      415,
      'UnsupportedMediaType' as never,
      `the body of the request was in an unknown format - accepted media types include: ${Object.keys(TYPES).slice(0, 4).join(', ')}`,
      {},
    );
  return type;
}

export interface PatchOptions {
  /** fieldManager (apply) */
  manager?: string;
  /** apply: take fields other managers own */
  force?: boolean;
  now: number;
  /** apply to a custom resource: its CRD version's openAPIV3Schema (its list types) */
  schema?: unknown;
}

/**
 * The object after the patch; `current` is undefined only for an apply that creates. A patch that
 * cannot be decoded is 400; one that cannot be applied is 422, as upstream.
 */
export function applyPatch(
  type: PatchType,
  raw: string,
  current: KubeObject | undefined,
  info: ResourceInfo,
  opts: PatchOptions,
): KubeObject {
  let patch: unknown;
  try {
    patch = type === 'apply' ? parseYaml(raw) : JSON.parse(raw);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const fail = (msg: string) =>
    invalid(info.qualifiedKind, current?.metadata.name ?? '', [invalidValue('patch', '', msg)]);
  try {
    switch (type) {
      case 'json': {
        if (!Array.isArray(patch))
          throw badRequest('json patch: the patch must be a JSON array of operations');
        const doc = structuredClone(current);
        return jsonpatch.applyPatch(doc, patch as jsonpatch.Operation[], true, true)
          .newDocument as KubeObject;
      }
      case 'merge':
        return jsonMergePatch(current, patch) as KubeObject;
      case 'strategic':
        return strategicMergePatch(current, patch, info.kind) as KubeObject;
      case 'apply':
        return serverSideApply(current, patch, info, opts);
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof PatchError || e instanceof jsonpatch.JsonPatchError) throw fail(e.message);
    throw e;
  }
}

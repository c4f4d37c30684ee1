/**
 * LIST: label/field selectors and limit/continue paging over one store range, read at one
 * revision (upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go GetList and
 * continue.go). A continue token carries the revision and the key after the last one returned,
 * so every page of one list reads the same snapshot until that revision is compacted.
 *
 * Example: 3 pods a, b, c stored at revisions 2..4, list limit 2
 *   page 1 at r4 → a, b; continue = {rv: 4, start: "default/b\0"}
 *   r5 delete a
 *   page 2 at r4 → c (a's deletion is not seen: same snapshot)
 */
import { compactedFloor, decodeKv, isCompacted, matches, parseRV } from './apiserver-kv.js';
import { badRequest, resourceExpired, timeout } from './errors.js';
import { storagePrefix, type ResourceInfo } from './registry.js';
import { prefixEnd } from '../store/keyrange.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import type { KubeObject } from './types.js';
import type { KvStore, RangeResponse } from '../store/types.js';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** "" = latest; "0" = any (latest); N = not older than N (latest, or 504 if the store is behind) */
  resourceVersion?: string;
  /** 'Exact' reads at exactly resourceVersion (410 if compacted) */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
}

export interface ListResult<T> {
  items: T[];
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(rv: number, startRelative: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: startRelative })).toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (t.v !== 'meta.k8s.io/v1' || !Number.isInteger(t.rv) || typeof t.start !== 'string')
      throw new Error('bad');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
}

/** List one resource's objects (see {@link ListOptions}). */
export async function listObjects<T extends KubeObject>(
  store: KvStore,
  info: ResourceInfo,
  opts: ListOptions,
): Promise<ListResult<T>> {
  const prefix = storagePrefix(info, info.namespaced ? opts.namespace : undefined);
  const end = prefixEnd(prefix);
  const labels = parseLabelSelector(opts.labelSelector);
  const fields = parseFieldSelector(opts.fieldSelector, info.resource);
  const limit = opts.limit && opts.limit > 0 ? Math.floor(opts.limit) : 0;

  let start = prefix;
  let revision = 0; // 0 = latest
  if (opts.continue) {
    const t = decodeContinue(opts.continue);
    if (t.start.includes('/') && !info.namespaced)
      throw badRequest('continue key is not valid: invalid start');
    start = prefix + t.start;
    revision = t.rv;
  } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
    const rv = parseRV(opts.resourceVersion);
    const current = await store.currentRevision();
    if (rv > current) throw timeout(`Too large resource version: ${rv}, current: ${current}`);
    if (opts.resourceVersionMatch === 'Exact') revision = rv;
  }

  const items: T[] = [];
  let readAt = revision;
  let cont: string | undefined;
  const pageSize = limit > 0 ? Math.max(limit, 1) : 0;
  for (;;) {
    let r: RangeResponse;
    try {
      r = await store.range({
        key: start,
        rangeEnd: end,
        revision: readAt || undefined,
        limit: pageSize || undefined,
      });
    } catch (e) {
      if (isCompacted(e)) {
        if (opts.continue) {
          throw resourceExpired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
          );
        }
        throw resourceExpired(
          `too old resource version: ${revision} (${(await compactedFloor(store, revision)) - 1})`,
        );
      }
      throw e;
    }
    if (!readAt) readAt = r.header.revision;
    let lastKey: string | undefined;
    let stoppedEarly = false;
    for (let i = 0; i < r.kvs.length; i++) {
      const kv = r.kvs[i]!;
      lastKey = kv.key;
      const obj = decodeKv<T>(kv);
      if (matches(obj, labels, fields)) {
        items.push(obj);
        if (limit > 0 && items.length >= limit) {
          stoppedEarly = i < r.kvs.length - 1 || r.more;
          break;
        }
      }
    }
    if (limit > 0 && items.length >= limit) {
      if (stoppedEarly && lastKey !== undefined)
        cont = encodeContinue(readAt, lastKey.slice(prefix.length) + '\u0000');
      break;
    }
    if (!r.more || lastKey === undefined) break;
    start = lastKey + '\u0000';
  }
  const metadata: ListResult<T>['metadata'] = { resourceVersion: String(readAt) };
  if (cont) metadata.continue = cont;
  return { items, metadata };
}

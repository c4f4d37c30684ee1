/**
 * The client-side view of the ApiServer: the operations informers, controllers, the kubelet model
 * and the simulation use. The real ApiServer (src/api/apiserver.ts) satisfies it through
 * {@link ./server-client.ts}; tests may use any implementation. Everything in src/client,
 * src/controllers and src/sim learns about state only through {@link ApiClient.watch} and changes
 * state only through the write methods here — never by calling another component.
 */
import { OBJECT_KEY, metaKey } from '../api/keys.js';
import type { Binding, KubeObject } from '../api/types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  /** the object; for ERROR a Status ({ code, reason, message }) */
  object: T;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult<T> {
  items: T[];
  metadata: { resourceVersion: string; continue?: string };
}

export interface WatchOptions {
  namespace?: string;
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface WatchHandle {
  stop(): void;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Orphan | Background | Foreground: what the garbage collector does with the dependents */
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
}

/** What a client may ask of the ApiServer. Resources are plural lowercase ('pods', 'nodes', …). */
export interface ApiClient {
  create<T extends KubeObject>(resource: string, obj: T): Promise<T>;
  get<T extends KubeObject>(resource: string, namespace: string | undefined, name: string): Promise<T>;
  list<T extends KubeObject>(resource: string, opts?: ListOptions): Promise<ListResult<T>>;
  /** fails with 409 Conflict when obj.metadata.resourceVersion is stale */
  update<T extends KubeObject>(resource: string, obj: T): Promise<T>;
  updateStatus<T extends KubeObject>(resource: string, obj: T): Promise<T>;
  delete(resource: string, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<void>;
  bind(binding: Binding): Promise<void>;
  watch<T extends KubeObject>(
    resource: string,
    opts: WatchOptions,
    handler: (ev: WatchEvent<T>) => void,
  ): WatchHandle | Promise<WatchHandle>;
}

/** The HTTP-like code of an ApiServer error (ApiError.code, or a Status), or undefined. */
export function errorCode(err: unknown): number | undefined {
  const c = (err as { code?: unknown })?.code;
  return typeof c === 'number' ? c : undefined;
}

export const isConflict = (err: unknown): boolean => errorCode(err) === 409;
export const isNotFound = (err: unknown): boolean => errorCode(err) === 404;
export const isAlreadyExists = (err: unknown): boolean =>
  errorCode(err) === 409 && (err as { reason?: string }).reason === 'AlreadyExists';
export const isTooManyRequests = (err: unknown): boolean => errorCode(err) === 429;

/** "namespace/name" (or "name" for cluster-scoped objects): client-go's MetaNamespaceKeyFunc. */
export function keyOf(obj: KubeObject): string {
  // a shared frozen decode carries its key (src/api/keys.ts OBJECT_KEY): one string for every holder
  return (obj as { [OBJECT_KEY]?: string })[OBJECT_KEY] ?? metaKey(obj);
}

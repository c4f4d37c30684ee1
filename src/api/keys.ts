/** Keys that name objects in tables and reports. */
import type { Pod } from './types.js';

/**
 * `namespace/name` of a pod, the namespace defaulting to "default" as the apiserver defaults it: a
 * pod read from a manifest without a namespace has the key it will have once created. (For an
 * object read back from the API this equals client-go's MetaNamespaceKeyFunc, src/client/api.ts keyOf.)
 */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

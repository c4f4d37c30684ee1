/** Timestamps as the apiserver writes them. */

/** RFC 3339 with second precision, as metav1.Time marshals. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Timestamps as the apiserver writes them: every metav1.Time field (creationTimestamp, condition
 * lastTransitionTime, event first/lastTimestamp, taint timeAdded …) and every metav1.MicroTime
 * field (Lease acquireTime/renewTime, event eventTime). Components import these instead of
 * formatting dates themselves.
 *
 *   rfc3339(1700000000123)       → "2023-11-14T22:13:20Z"         (Time.MarshalJSON: seconds)
 *   rfc3339Micro(1700000000123)  → "2023-11-14T22:13:20.123000Z"  (MicroTime: RFC3339Micro)
 */

/** RFC 3339 with second precision, as metav1.Time marshals (the fraction is dropped, not rounded). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** RFC 3339 with microseconds, as metav1.MicroTime marshals (metav1.RFC3339Micro). */
export function rfc3339Micro(ms: number): string {
  // toISOString always ends in "Z" (a Lease renewal formats one per request: no RegExp)
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

/** metav1.MicroTime as Lease renewTime is written: RFC 3339 with microseconds */
export function isoMicro(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

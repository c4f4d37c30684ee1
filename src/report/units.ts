/**
 * Quantities as people read them in tables and charts: memory in binary units (`310Gi`, `1.5Gi`,
 * `512Mi`), CPU in cores (`12.5`), durations as `6m00s`. Exact values stay in json/yaml output.
 */

const BINARY: [string, number][] = [
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];

/** Three significant digits at most, no trailing zeros: 310, 15.5, 1.25. */
function short(v: number): string {
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return String(+v.toFixed(digits));
}

/** Bytes in the largest binary unit that keeps the number ≥ 1: 333396221952 → "310Gi". */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '-';
  const a = Math.abs(n);
  for (const [unit, size] of BINARY) if (a >= size) return `${short(n / size)}${unit}`;
  return String(Math.round(n));
}

/** Millicores as cores: 12500 → "12.5", 250 → "0.25". */
export function cores(milli: number): string {
  if (!Number.isFinite(milli)) return '-';
  return String(+(milli / 1000).toFixed(3));
}

/** A resource amount in the unit people use: cpu in cores, memory and storage in binary units. */
export function resourceAmount(resource: string, v: number): string {
  if (resource === 'cpu') return cores(v);
  if (resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-'))
    return bytes(v);
  return String(v);
}

/** Seconds as a clock duration: 360 → "6m00s", 42 → "42s", 3725 → "1h02m05s". */
export function clockTime(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '-';
  const neg = s < 0 ? '-' : '';
  const t = Math.round(Math.abs(s));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const r = t % 60;
  if (h) return `${neg}${h}h${String(m).padStart(2, '0')}m${String(r).padStart(2, '0')}s`;
  return m ? `${neg}${m}m${String(r).padStart(2, '0')}s` : `${neg}${r}s`;
}

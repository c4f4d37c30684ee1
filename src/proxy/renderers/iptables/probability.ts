/**
 * kube-proxy's computeProbability(n): `fmt.Sprintf("%0.10f", 1.0/float64(n))`.
 *
 * JS `toFixed(10)` rounds the exact binary value correctly except on an exact tie, where it
 * rounds up while Go rounds half to even. A tie needs 1/n to terminate after exactly 11
 * decimals with a final 5, i.e. n = 2048·5^k (k ≤ 10); those are computed exactly here.
 */
const cache: string[] = ['<bad value>'];

export function computeProbability(n: number): string {
  const x = 1 / n;
  if (!isTie(n)) return x.toFixed(10);
  // exact decimal of 1/n with 11 digits: 10^11 / n is an integer ending in 5
  const scaled = 10n ** 11n / BigInt(n);
  let q = scaled / 10n; // truncated to 10 digits
  // exactly halfway: round to even
  if (q % 2n === 1n) q += 1n;
  const digits = q.toString().padStart(10, '0');
  return `0.${digits}`;
}

function isTie(n: number): boolean {
  if (n < 2048) return false;
  let m = n,
    twos = 0,
    fives = 0;
  while (m % 2 === 0) {
    m /= 2;
    twos++;
  }
  while (m % 5 === 0) {
    m /= 5;
    fives++;
  }
  return m === 1 && twos === 11 && fives <= 10;
}

/** Cached probability strings, as kube-proxy precomputes them (index n → 1/n). */
export function probability(n: number): string {
  for (let i = cache.length; i <= n; i++) cache.push(computeProbability(i));
  return cache[n];
}

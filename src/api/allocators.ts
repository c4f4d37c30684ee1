/**
 * Service ClusterIP and NodePort allocation (the apiserver's service registry allocators).
 * Upstream picks a random free address/port; kubesim hands out the lowest free one so runs are
 * reproducible without a seed. Explicitly requested values are reserved (or rejected when taken,
 * with upstream's messages). State is in memory: a restarted ApiServer re-reserves values as
 * objects are created, which is how snapshots are loaded.
 */

/** Parse dotted IPv4 to a 32-bit number, or undefined. */
export function ipv4ToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const b = Number(m[i]);
    if (b > 255) return undefined;
    n = n * 256 + b;
  }
  return n;
}

export function intToIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export class ClusterIPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly used = new Set<number>();
  private next = 1;

  /** @param cidr the service CIDR (kube-apiserver's default --service-cluster-ip-range is 10.96.0.0/12) */
  constructor(readonly cidr = '10.96.0.0/12') {
    const [ip, bits] = cidr.split('/');
    const base = ipv4ToInt(ip ?? '');
    const prefix = Number(bits);
    if (base === undefined || !Number.isInteger(prefix) || prefix < 8 || prefix > 30) {
      throw new TypeError(`invalid service CIDR "${cidr}"`);
    }
    this.size = 2 ** (32 - prefix);
    this.base = base - (base % this.size);
  }

  contains(ip: string): boolean {
    const n = ipv4ToInt(ip);
    return n !== undefined && n > this.base && n < this.base + this.size - 1;
  }

  /** Reserve a requested IP; returns an error text like upstream's, or undefined. */
  reserve(ip: string): string | undefined {
    const n = ipv4ToInt(ip);
    if (n === undefined || !this.contains(ip)) {
      return `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}`;
    }
    if (this.used.has(n)) return `failed to allocate IP ${ip}: provided IP is already allocated`;
    this.used.add(n);
    return undefined;
  }

  /** Allocate the lowest free IP. */
  allocate(): string {
    for (let i = 0; i < this.size - 2; i++) {
      const off = ((this.next - 1 + i) % (this.size - 2)) + 1;
      const n = this.base + off;
      if (!this.used.has(n)) {
        this.used.add(n);
        this.next = off + 1;
        return intToIpv4(n);
      }
    }
    throw new Error(`range is full`);
  }

  release(ip: string): void {
    const n = ipv4ToInt(ip);
    if (n !== undefined) this.used.delete(n);
  }
}

export class NodePortAllocator {
  private readonly used = new Set<number>();
  private next: number;

  /** @param lo,hi kube-apiserver's default --service-node-port-range is 30000-32767 */
  constructor(
    readonly lo = 30000,
    readonly hi = 32767,
  ) {
    this.next = lo;
  }

  reserve(port: number): string | undefined {
    if (port < this.lo || port > this.hi) {
      return `provided port is not in the valid range. The range of valid ports is ${this.lo}-${this.hi}`;
    }
    if (this.used.has(port)) return 'provided port is already allocated';
    this.used.add(port);
    return undefined;
  }

  allocate(): number {
    const n = this.hi - this.lo + 1;
    for (let i = 0; i < n; i++) {
      const p = this.lo + ((this.next - this.lo + i) % n);
      if (!this.used.has(p)) {
        this.used.add(p);
        this.next = p + 1;
        return p;
      }
    }
    throw new Error('range is full');
  }

  release(port: number): void {
    this.used.delete(port);
  }
}

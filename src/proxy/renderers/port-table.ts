/**
 * Service port keys in the order every renderer visits them (`[...keys].sort()`: kube-proxy walks
 * a Go map, the renderers sort for deterministic output), kept sorted as ports come and go so that
 * an incremental sync does not sort every key again.
 */
export class SortedKeys {
  private keys: string[] = [];

  /** Replaces the contents (a full sync). */
  reset(keys: Iterable<string>): void {
    this.keys = [...keys].sort();
  }

  get size(): number {
    return this.keys.length;
  }

  /** The keys, sorted (do not modify). */
  all(): readonly string[] {
    return this.keys;
  }

  add(key: string): void {
    const i = this.search(key);
    if (this.keys[i] !== key) this.keys.splice(i, 0, key);
  }

  delete(key: string): void {
    const i = this.search(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** first index whose key is >= `key` */
  private search(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * What an incremental sync remembers per service port, by port key, in visiting order, with the
 * ports of each Service ("ns/name") so that a changed Service's old ports can be found after the
 * model has dropped them.
 */
export class PortTable<V extends { readonly serviceName: string }> {
  readonly keys = new SortedKeys();
  private readonly values = new Map<string, V>();
  private readonly byService = new Map<string, Set<string>>();

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Records `key`'s value (undefined: the port is gone). */
  set(key: string, value: V | undefined): void {
    const prev = this.values.get(key);
    if (prev) {
      const ports = this.byService.get(prev.serviceName);
      ports?.delete(key);
      if (ports?.size === 0) this.byService.delete(prev.serviceName);
    }
    if (value) {
      this.values.set(key, value);
      let ports = this.byService.get(value.serviceName);
      if (!ports) this.byService.set(value.serviceName, (ports = new Set()));
      ports.add(key);
      this.keys.add(key);
    } else {
      this.values.delete(key);
      this.keys.delete(key);
    }
  }

  /** Forgets every port; `keys` (the model's) become the visiting order. */
  clear(keys: Iterable<string> = []): void {
    this.keys.reset(keys);
    this.values.clear();
    this.byService.clear();
  }

  /** The ports of `changed` Services, before (ours) and after (`current`), sorted. */
  portsOf(changed: ReadonlySet<string>, current: (service: string) => readonly string[]): string[] {
    const out = new Set<string>();
    for (const name of changed) {
      for (const k of current(name)) out.add(k);
      for (const k of this.byService.get(name) ?? []) out.add(k);
    }
    return [...out].sort();
  }
}

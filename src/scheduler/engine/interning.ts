/**
 * A dictionary of strings to dense ids 0, 1, 2, … (label keys, label values per key, taints,
 * images, resources, topology domains). Ids are never reused, so an id compiled into a query stays
 * meaningful; the dictionary only grows (a cluster's vocabulary is small next to its node count).
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  get size(): number {
    return this.values.length;
  }

  /** id of `s`, interning it if new */
  intern(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(s, id);
      this.values.push(s);
    }
    return id;
  }

  /** id of `s` or -1 if it was never interned */
  get(s: string): number {
    const id = this.ids.get(s);
    return id === undefined ? -1 : id;
  }

  value(id: number): string {
    return this.values[id];
  }
}

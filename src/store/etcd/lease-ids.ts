/**
 * LeaseIdTable: etcd lease IDs are int64 and etcd 3.4 builds them from the member ID's low 16
 * bits in the top bits (idutil.Generator), so they are usually above 2^53 and a JS number cannot
 * hold them. kubesim's LeaseId is a number, so:
 *
 *   - an etcd ID <= Number.MAX_SAFE_INTEGER maps to itself (e.g. IDs chosen by the caller);
 *   - a larger ID gets a local alias counting down from Number.MAX_SAFE_INTEGER
 *     (MAX_SAFE_INTEGER, MAX_SAFE_INTEGER - 1, ...), remembered in both directions.
 *
 * ID 0 ("no lease") maps to 0 both ways. An alias is stable for the life of the store.
 */
export class LeaseIdTable {
  private readonly toLocalMap = new Map<string, number>();
  private readonly toEtcdMap = new Map<number, string>();
  private nextAlias = Number.MAX_SAFE_INTEGER;

  /** etcd's decimal-string ID → local number */
  toLocal(etcdId: string | number | null | undefined): number {
    if (etcdId === null || etcdId === undefined) return 0;
    const s = String(etcdId);
    if (s === '0' || s === '') return 0;
    const known = this.toLocalMap.get(s);
    if (known !== undefined) return known;
    const n = Number(s);
    let local: number;
    if (Number.isSafeInteger(n) && n > 0 && n < this.nextAlias) {
      local = n;
    } else {
      local = this.nextAlias--;
    }
    this.toLocalMap.set(s, local);
    this.toEtcdMap.set(local, s);
    return local;
  }

  /** local number → etcd's decimal-string ID (an unknown number is sent as itself) */
  toEtcd(local: number): string {
    if (!local) return '0';
    return this.toEtcdMap.get(local) ?? String(local);
  }
}

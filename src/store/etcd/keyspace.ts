/**
 * Keyspace: maps kubesim's string keys to etcd's byte keys under an optional prefix, the way
 * etcd's own namespace client (clientv3/namespace) does, so several independent stores can share
 * one etcd. With prefix "p/":
 *
 *   key "a", no rangeEnd      → "p/a"              (one key)
 *   key "a", rangeEnd "b"     → ["p/a", "p/b")
 *   key "a", rangeEnd "\0"    → ["p/a", "p0")      ("every key >= a" stays inside the prefix: "p0" = prefixEnd("p/"))
 *   key "\0", rangeEnd "\0"   → ["p/\0", "p0")     (all keys of the namespace; the empty key is invalid anyway)
 *
 * Keys coming back are stripped of the prefix. Without a prefix every mapping is the identity.
 */
export class Keyspace {
  private readonly prefixBuf: Buffer;
  private readonly prefixEndBuf: Buffer;

  constructor(readonly prefix = '') {
    this.prefixBuf = Buffer.from(prefix, 'utf8');
    this.prefixEndBuf = prefixEnd(this.prefixBuf);
  }

  toEtcdKey(key: string): Buffer {
    const k = Buffer.from(key, 'utf8');
    return this.prefixBuf.length === 0 ? k : Buffer.concat([this.prefixBuf, k]);
  }

  /** [key, rangeEnd] in etcd bytes; rangeEnd undefined = single key. */
  toEtcdRange(key: string, rangeEnd: string | undefined): [Buffer, Buffer | undefined] {
    const k = this.toEtcdKey(key);
    if (rangeEnd === undefined || rangeEnd === '') return [k, undefined];
    if (this.prefixBuf.length === 0) return [k, Buffer.from(rangeEnd, 'utf8')];
    if (rangeEnd === '\0') return [k, this.prefixEndBuf];
    return [k, this.toEtcdKey(rangeEnd)];
  }

  fromEtcd(key: Buffer | Uint8Array | null | undefined): string {
    if (!key) return '';
    const b = Buffer.isBuffer(key) ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
    const p = this.prefixBuf.length;
    return p === 0 ? b.toString('utf8') : b.subarray(p).toString('utf8');
  }

  /** whether an etcd key lies inside this namespace (always true without a prefix) */
  owns(key: Buffer | Uint8Array): boolean {
    const p = this.prefixBuf;
    if (p.length === 0) return true;
    if (key.length < p.length) return false;
    for (let i = 0; i < p.length; i++) if (key[i] !== p[i]) return false;
    return true;
  }
}

/**
 * The smallest key greater than every key with the given prefix (clientv3.GetPrefixRangeEnd):
 * increment the last byte < 0xff and drop what follows; all-0xff (or empty) prefixes → "\0" (no end).
 */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

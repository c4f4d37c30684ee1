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
 * A key string's bytes are those of src/store/keybytes.ts (UTF-8, U+DC80..U+DCFF as raw bytes), so
 * keys that are not UTF-8 text travel both ways unchanged.
 */
import { keyBytes, keyFromBytes } from '../keybytes.js';
import { prefixEnd } from '../keyrange.js';
export class Keyspace {
  private readonly prefixBuf: Buffer;
  private readonly prefixEndBuf: Buffer;

  constructor(readonly prefix = '') {
    this.prefixBuf = bytesOf(prefix);
    this.prefixEndBuf = bytesOf(prefixEnd(prefix));
  }

  /** Throws a StoreError (INVALID_ARGUMENT) for a string that names no byte string. */
  toEtcdKey(key: string): Buffer {
    const k = bytesOf(key);
    return this.prefixBuf.length === 0 ? k : Buffer.concat([this.prefixBuf, k]);
  }

  /** [key, rangeEnd] in etcd bytes; rangeEnd undefined = single key. */
  toEtcdRange(key: string, rangeEnd: string | undefined): [Buffer, Buffer | undefined] {
    const k = this.toEtcdKey(key);
    if (rangeEnd === undefined || rangeEnd === '') return [k, undefined];
    if (this.prefixBuf.length === 0) return [k, bytesOf(rangeEnd)];
    if (rangeEnd === '\0') return [k, this.prefixEndBuf];
    return [k, this.toEtcdKey(rangeEnd)];
  }

  fromEtcd(key: Buffer | Uint8Array | null | undefined): string {
    if (!key) return '';
    return keyFromBytes(key.subarray(this.prefixBuf.length));
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

/** a key's bytes as a Buffer view (no copy) */
function bytesOf(key: string): Buffer {
  const b = keyBytes(key);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

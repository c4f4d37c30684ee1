/**
 * Value encoding for the store: msgpackr with one shared Packr. Structured clones and record
 * extensions are off so every value is plain, self-describing MessagePack that any process (or
 * a real etcd holding the bytes) can decode without shared state. `metadata.resourceVersion` is
 * never stored (it is the key's modRevision, set on read), as in kube-apiserver.
 */
import { Packr } from 'msgpackr';

const packr = new Packr({ structuredClone: false, useRecords: false, moreTypes: false, mapsAsObjects: true });

/** Encode an object to bytes. The returned buffer is owned by the caller. */
export function encode(obj: unknown): Uint8Array {
  return packr.pack(obj);
}

/** Decode bytes written by {@link encode}. Every call returns a fresh object. */
export function decode<T = unknown>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

/** A deep copy through the codec (plain JSON-like data only). */
export function deepCopy<T>(obj: T): T {
  return packr.unpack(packr.pack(obj)) as T;
}

/** Byte equality of two encodings (same content in the same key order). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// kube-proxy chain-name hashing (WASM twin of src/proxy/renderers/iptables/names.ts hash16):
// SHA-256 of each text, the first 10 digest bytes as 16 characters of standard base32 (RFC 4648,
// A-Z2-7), as Go's portProtoHash / servicePortEndpointChainName take them. One call hashes a
// batch: the JavaScript side (src/proxy/renderers/iptables/names-wasm.ts) writes the texts and
// reads the names, so the boundary is crossed once per batch, not once per name.
//
// Linear memory from base() on, laid out by the caller:
//   input  at inPtr:  n records, each a u16 byte length (little endian) then that many bytes
//   output at outPtr: n × 16 ASCII bytes
// test/proxy/iptables/names-wasm.test.ts checks it against the JavaScript hash on seeded names.

import { encode16, sha256 } from './lib/sha256';

/** First free byte of linear memory: the caller lays its input and output out from here. */
export function base(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/** Hashes n records at inPtr (u16 length + bytes each) into n × 16 characters at outPtr. */
export function hashBatch(inPtr: usize, n: i32, outPtr: usize): void {
  let p = inPtr;
  for (let i = 0; i < n; i++) {
    const len = <i32>load<u16>(p);
    sha256(p + 2, len);
    encode16(outPtr + (<usize>i << 4));
    p += 2 + <usize>len;
  }
}

// kube-proxy iptables endpoint rules (WASM twin of the KUBE-SEP loop of
// src/proxy/renderers/iptables/rules.ts writeServicePortChains): for each IPv4 endpoint of one
// service port, the two lines of its KUBE-SEP chain, written as bytes:
//
//   -A <sep><comment> -s <ip><masq>\n
//   -A <sep><comment>[ -m recent --name <sep> --set]<dnat><ip>:<port>\n
//
// Go's proxier writes them with one fmt call per word (proxier.go, "Handle traffic that loops
// back to the originator with SNAT" and "DNAT to final destination"). The JavaScript side
// (src/proxy/renderers/iptables/sep-wasm.ts) lays out one call's input from base() on:
//   parts at partsPtr: the comment, masq and dnat texts back to back (lengths passed)
//   records at recPtr: n × 40 bytes: u32 ip, u32 port, u8 sep length, sep bytes (≤ 31)
// and reads the lines from outPtr; the call returns their byte length.
// test/proxy/iptables/sep-wasm.test.ts checks whole syncs against the JavaScript lines.

/** First free byte of linear memory: the caller lays its input and output out from here. */
export function base(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

export const RECORD: u32 = 40;

@inline function put(out: usize, c: u32): usize {
  store<u8>(out, <u8>c);
  return out + 1;
}

@inline function copy(out: usize, from: usize, len: usize): usize {
  memory.copy(out, from, len);
  return out + len;
}

/** decimal digits of v (0 ≤ v < 2^32) */
function decimal(out: usize, v: u32): usize {
  if (v >= 10) out = decimal(out, v / 10);
  return put(out, 48 + (v % 10));
}

function ipv4(out: usize, ip: u32): usize {
  out = decimal(out, ip >>> 24);
  out = put(out, 46);
  out = decimal(out, (ip >>> 16) & 255);
  out = put(out, 46);
  out = decimal(out, (ip >>> 8) & 255);
  out = put(out, 46);
  return decimal(out, ip & 255);
}

// " -m recent --name "
const RECENT: usize = memory.data<u8>([
  32, 45, 109, 32, 114, 101, 99, 101, 110, 116, 32, 45, 45, 110, 97, 109, 101, 32,
]);
// " --set"
const SET: usize = memory.data<u8>([32, 45, 45, 115, 101, 116]);

/**
 * Writes both lines of each of `n` endpoints; `affinity` adds the `-m recent --set` match of
 * ClientIP session affinity. Returns the bytes written at outPtr.
 */
export function sepRules(
  partsPtr: usize,
  commentLen: u32,
  masqLen: u32,
  dnatLen: u32,
  affinity: bool,
  recPtr: usize,
  n: u32,
  outPtr: usize,
): u32 {
  const comment = partsPtr;
  const masq = comment + commentLen;
  const dnat = masq + masqLen;
  let out = outPtr;
  for (let i: u32 = 0; i < n; i++) {
    const rec = recPtr + <usize>(i * RECORD);
    const ip = load<u32>(rec);
    const port = load<u32>(rec, 4);
    const sepLen = <usize>load<u8>(rec, 8);
    const sep = rec + 9;
    // -A <sep><comment> -s <ip><masq>
    out = put(put(put(out, 45), 65), 32);
    out = copy(out, sep, sepLen);
    out = copy(out, comment, commentLen);
    out = put(put(put(put(out, 32), 45), 115), 32);
    out = ipv4(out, ip);
    out = copy(out, masq, masqLen);
    out = put(out, 10);
    // -A <sep><comment>[ -m recent --name <sep> --set]<dnat><ip>:<port>
    out = put(put(put(out, 45), 65), 32);
    out = copy(out, sep, sepLen);
    out = copy(out, comment, commentLen);
    if (affinity) {
      out = copy(out, RECENT, 18);
      out = copy(out, sep, sepLen);
      out = copy(out, SET, 6);
    }
    out = copy(out, dnat, dnatLen);
    out = ipv4(out, ip);
    out = put(out, 58);
    out = decimal(out, port);
    out = put(out, 10);
  }
  return <u32>(out - outPtr);
}

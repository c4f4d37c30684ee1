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

import { encode16, sha256 } from './lib/sha256';

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

// ---------------------------------------------------------------------------------------------
// A whole service port's KUBE-SVC and KUBE-SEP chains, read from its endpoint columns
// (src/proxy/model/endpoint-columns.ts EndpointList: 4 u32 words per endpoint, port | flags << 16,
// node id, zone id, IPv4) for the common case the JavaScript side selects (IPv4, every endpoint
// ready, Cluster traffic policy, no topology hints; rules.ts planFromColumns): each endpoint's
// "ip:port", its chain name (SHA-256 of "<ns/name:port><proto><ip:port>", kube-proxy's
// servicePortEndpointChainName), then the lines Go's writeServiceToEndpointRules and the KUBE-SEP
// loop of syncProxyRules write:
//
//   declarations  :<svc> - [0:0]            :KUBE-SEP-<hash> - [0:0]  (one per endpoint)
//   rules         [-A <svc>[<lc><ip:port>"] -m recent --name <sep><aff><sep>]  (ClientIP affinity)
//                 -A <svc>[<lc><ip:port>"][ -m statistic --mode random --probability <p>] -j <sep>
//                 -A <sep><sc> -s <ip><masq>
//                 -A <sep><sc>[ -m recent --name <sep> --set]<dnat><ip>:<port>
//
// The service-side texts are laid out once per port at partsPtr, back to back: hash base
// (ns/name:port + protocol), svc chain, sep comment (sc), masq, dnat, ladder comment prefix (lc,
// "" in large-cluster mode), affinity middle (aff, " --rcheck --seconds <s> --reap -j ", "" when
// no affinity). probPtr holds kube-proxy's probability strings, 12 bytes each, 1/k at probPtr + 12k.
// test/proxy/iptables/port-kernel.test.ts compares whole syncs with the JavaScript renderer.

const SEP_PREFIX: usize = memory.data<u8>([75, 85, 66, 69, 45, 83, 69, 80, 45]); // KUBE-SEP-
const DECL_TAIL: usize = memory.data<u8>([32, 45, 32, 91, 48, 58, 48, 93, 10]); // " - [0:0]\n"
// " -m statistic --mode random --probability "
const STAT: usize = memory.data<u8>([
  32, 45, 109, 32, 115, 116, 97, 116, 105, 115, 116, 105, 99, 32, 45, 45, 109, 111, 100, 101, 32, 114,
  97, 110, 100, 111, 109, 32, 45, 45, 112, 114, 111, 98, 97, 98, 105, 108, 105, 116, 121, 32,
]);
const JUMP: usize = memory.data<u8>([32, 45, 106, 32]); // " -j "
const SRC: usize = memory.data<u8>([32, 45, 115, 32]); // " -s "
const EP_SLOT: usize = 24;

let declLen: u32 = 0;

/** Bytes of chain declarations the last servicePort call wrote at its declPtr. */
export function declLength(): u32 {
  return declLen;
}

@inline function sep(out: usize, names: usize, i: u32): usize {
  out = copy(out, SEP_PREFIX, 9);
  return copy(out, names + (<usize>i << 4), 16);
}

@inline function head(out: usize, chain: usize, chainLen: usize): usize {
  out = put(put(put(out, 45), 65), 32); // "-A "
  return copy(out, chain, chainLen);
}

/** "-A <svc>[<lc><ip:port>"]" of a ladder or affinity line */
@inline function svcHead(out: usize, svc: usize, cLen: usize, lc: usize, lcLen: usize, ep: usize): usize {
  out = head(out, svc, cLen);
  if (lcLen > 0) {
    out = copy(out, lc, lcLen);
    out = copy(out, ep + 1, <usize>load<u8>(ep));
    out = put(out, 34);
  }
  return out;
}

/**
 * Writes the port's declarations at declPtr (length: declLength()) and its rules at rulesPtr;
 * returns the rules' byte length. Scratch: hashPtr (hLen + 24 bytes), epPtr (n × 24), namesPtr
 * (n × 16: each endpoint's 16 hash characters, read back by a caller that records chain names).
 */
export function servicePort(
  partsPtr: usize,
  hLen: u32,
  cLen: u32,
  scLen: u32,
  mLen: u32,
  dLen: u32,
  lcLen: u32,
  affLen: u32,
  probPtr: usize,
  colsPtr: usize,
  n: u32,
  hashPtr: usize,
  epPtr: usize,
  namesPtr: usize,
  declPtr: usize,
  rulesPtr: usize,
): u32 {
  const hb = partsPtr;
  const svc = hb + hLen;
  const sc = svc + cLen;
  const masq = sc + scLen;
  const dnat = masq + mLen;
  const lc = dnat + dLen;
  const aff = lc + lcLen;
  // each endpoint's "ip:port" and chain name
  memory.copy(hashPtr, hb, hLen);
  for (let i: u32 = 0; i < n; i++) {
    const col = colsPtr + (<usize>i << 4);
    const ep = epPtr + <usize>i * EP_SLOT;
    let e = ipv4(ep + 1, load<u32>(col, 12));
    e = put(e, 58);
    e = decimal(e, load<u32>(col) & 0xffff);
    const len = e - (ep + 1);
    store<u8>(ep, <u8>len);
    memory.copy(hashPtr + hLen, ep + 1, len);
    sha256(hashPtr, <i32>hLen + <i32>len);
    encode16(namesPtr + (<usize>i << 4));
  }
  // declarations
  let d = put(declPtr, 58);
  d = copy(d, svc, cLen);
  d = copy(d, DECL_TAIL, 9);
  for (let i: u32 = 0; i < n; i++) {
    d = put(d, 58);
    d = sep(d, namesPtr, i);
    d = copy(d, DECL_TAIL, 9);
  }
  declLen = <u32>(d - declPtr);
  // the svc chain: affinity checks, then the probability ladder
  let out = rulesPtr;
  if (affLen > 0) {
    for (let i: u32 = 0; i < n; i++) {
      out = svcHead(out, svc, cLen, lc, lcLen, epPtr + <usize>i * EP_SLOT);
      out = copy(out, RECENT, 18);
      out = sep(out, namesPtr, i);
      out = copy(out, aff, affLen);
      out = sep(out, namesPtr, i);
      out = put(out, 10);
    }
  }
  for (let i: u32 = 0; i < n; i++) {
    out = svcHead(out, svc, cLen, lc, lcLen, epPtr + <usize>i * EP_SLOT);
    if (i < n - 1) {
      out = copy(out, STAT, 42);
      out = copy(out, probPtr + 12 * <usize>(n - i), 12);
    }
    out = copy(out, JUMP, 4);
    out = sep(out, namesPtr, i);
    out = put(out, 10);
  }
  // the endpoints' chains
  for (let i: u32 = 0; i < n; i++) {
    const col = colsPtr + (<usize>i << 4);
    const ip = load<u32>(col, 12);
    out = put(put(put(out, 45), 65), 32);
    out = sep(out, namesPtr, i);
    out = copy(out, sc, scLen);
    out = copy(out, SRC, 4);
    out = ipv4(out, ip);
    out = copy(out, masq, mLen);
    out = put(out, 10);
    out = put(put(put(out, 45), 65), 32);
    out = sep(out, namesPtr, i);
    out = copy(out, sc, scLen);
    if (affLen > 0) {
      out = copy(out, RECENT, 18);
      out = sep(out, namesPtr, i);
      out = copy(out, SET, 6);
    }
    out = copy(out, dnat, dLen);
    const ep = epPtr + <usize>i * EP_SLOT;
    out = copy(out, ep + 1, <usize>load<u8>(ep));
    out = put(out, 10);
  }
  return <u32>(out - rulesPtr);
}

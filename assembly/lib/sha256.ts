// SHA-256 and the 16-character base32 prefix of a digest, as kube-proxy names its chains
// (Go portProtoHash / servicePortEndpointChainName: sha256.Sum256, base32.StdEncoding, first 16
// characters). Shared by assembly/proxy_names.ts (a batch of names) and assembly/proxy_rules.ts
// (the names of a service port's endpoints while it writes their rules).

const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const ALPHABET: usize = memory.data<u8>([
  65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90,
  50, 51, 52, 53, 54, 55,
]);
// the message schedule (64 words) and one padded block (64 bytes)
const W: usize = memory.data(256);
const BLOCK: usize = memory.data(64);

let h0: u32 = 0; let h1: u32 = 0; let h2: u32 = 0; let h3: u32 = 0;
let h4: u32 = 0; let h5: u32 = 0; let h6: u32 = 0; let h7: u32 = 0;

@inline function rd(p: usize, i: i32): u32 {
  // big-endian word i of a 64-byte block
  return bswap<u32>(load<u32>(p + (<usize>i << 2)));
}

function compress(p: usize): void {
  for (let i = 0; i < 16; i++) store<u32>(W + (<usize>i << 2), rd(p, i));
  for (let i = 16; i < 64; i++) {
    const w15 = load<u32>(W + (<usize>(i - 15) << 2));
    const w2 = load<u32>(W + (<usize>(i - 2) << 2));
    const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >>> 10);
    store<u32>(
      W + (<usize>i << 2),
      load<u32>(W + (<usize>(i - 16) << 2)) + s0 + load<u32>(W + (<usize>(i - 7) << 2)) + s1,
    );
  }
  let a = h0; let b = h1; let c = h2; let d = h3; let e = h4; let f = h5; let g = h6; let h = h7;
  for (let i = 0; i < 64; i++) {
    const S1 = rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25);
    const ch = (e & f) ^ (~e & g);
    const t1 = h + S1 + ch + load<u32>(K + (<usize>i << 2)) + load<u32>(W + (<usize>i << 2));
    const S0 = rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = S0 + maj;
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h0 += a; h1 += b; h2 += c; h3 += d; h4 += e; h5 += f; h6 += g; h7 += h;
}

/** SHA-256 of len bytes at p into h0..h7. */
export function sha256(p: usize, len: i32): void {
  h0 = 0x6a09e667; h1 = 0xbb67ae85; h2 = 0x3c6ef372; h3 = 0xa54ff53a;
  h4 = 0x510e527f; h5 = 0x9b05688c; h6 = 0x1f83d9ab; h7 = 0x5be0cd19;
  let off = 0;
  while (len - off >= 64) {
    compress(p + <usize>off);
    off += 64;
  }
  // the tail, 0x80, zeros and the bit length: one block, or two when the tail is 56 bytes or more
  const rest = len - off;
  memory.fill(BLOCK, 0, 64);
  memory.copy(BLOCK, p + <usize>off, <usize>rest);
  store<u8>(BLOCK + <usize>rest, 0x80);
  if (rest >= 56) {
    compress(BLOCK);
    memory.fill(BLOCK, 0, 64);
  }
  const bits = <u64>len << 3;
  store<u32>(BLOCK + 56, bswap<u32>(<u32>(bits >>> 32)));
  store<u32>(BLOCK + 60, bswap<u32>(<u32>bits));
  compress(BLOCK);
}

@inline function b32(out: usize, i: i32, v: u32): void {
  store<u8>(out + <usize>i, load<u8>(ALPHABET + <usize>(v & 31)));
}

/** 16 base32 characters of the digest's first 80 bits (h0, h1, the top 16 bits of h2). */
export function encode16(out: usize): void {
  // bits 0..39 = h0 (32) + top 8 of h1; bits 40..79 = low 24 of h1 + top 16 of h2
  const hiA = <u64>h0 << 8 | <u64>(h1 >>> 24);
  const hiB = <u64>(h1 & 0xffffff) << 16 | <u64>(h2 >>> 16);
  for (let i = 0; i < 8; i++) {
    b32(out, i, <u32>(hiA >>> <u64>(35 - 5 * i)));
    b32(out, 8 + i, <u32>(hiB >>> <u64>(35 - 5 * i)));
  }
}


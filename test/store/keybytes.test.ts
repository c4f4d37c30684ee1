/**
 * Keys as byte strings (src/store/keybytes.ts) and etcd's range helpers (src/store/keyrange.ts),
 * checked against Node's own UTF-8 codec and Buffer.compare (bytes.Compare) on seeded random
 * bytes, and against etcd's clientv3 tables transcribed as data.
 */
import { describe, expect, it } from 'vitest';
import { compareKeys, keyBytes, keyFromBytes, orderKey } from '../../src/store/keybytes.js';
import { Keyspace } from '../../src/store/etcd/keyspace.js';
import { inRange, prefixEnd, upperBound } from '../../src/store/keyrange.js';
import { Rng } from '../../src/util/rng.js';

/** random bytes biased towards UTF-8 lead/continuation bytes, 0x00, 0x7f and 0xff */
function randomBytes(rng: Rng, max = 8): Uint8Array {
  const pool = [
    0x00, 0x01, 0x2f, 0x61, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xa9, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xff,
  ];
  const n = rng.int(max + 1);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.next() < 0.5 ? rng.pick(pool) : rng.int(256);
  return b;
}

/** etcd clientv3 getPrefix (client/v3/op.go), on bytes: the model prefixEnd must match */
function getPrefix(key: Uint8Array): Uint8Array {
  const end = Uint8Array.from(key);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Uint8Array.of(0);
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('key strings ↔ bytes', () => {
  it('every byte string has one key string, and it maps back to the same bytes', () => {
    const rng = new Rng(16);
    const bad: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const b = randomBytes(rng);
      const k = keyFromBytes(b);
      if (!Buffer.from(keyBytes(k)).equals(Buffer.from(b))) bad.push(JSON.stringify(k));
    }
    expect(bad).toEqual([]);
  });

  it('valid UTF-8 is the text itself (a leading BOM included); well-formed text encodes as UTF-8', () => {
    const rng = new Rng(17);
    let valid = 0;
    for (let i = 0; i < 5_000; i++) {
      const b = Buffer.from(randomBytes(rng));
      const text = b.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(b)) continue;
      valid++;
      if (keyFromBytes(b) !== text) expect(keyFromBytes(b)).toBe(text);
    }
    expect(valid).toBeGreaterThan(500);
    for (const s of ['', 'a', '\ufeffa', 'é', '日本', '😀', '\u0000\u007f', '\uffff']) {
      expect(Buffer.from(keyBytes(s)).equals(Buffer.from(s, 'utf8')), s).toBe(true);
      expect(keyFromBytes(keyBytes(s))).toBe(s);
    }
  });

  it('bytes outside a valid UTF-8 sequence are U+DC80..U+DCFF', () => {
    expect(keyFromBytes(Uint8Array.of(0x61, 0x80))).toBe('a\udc80');
    expect(keyFromBytes(Uint8Array.of(0xff))).toBe('\udcff');
    expect(keyFromBytes(Uint8Array.of(0xc3, 0xc0))).toBe('\udcc3\udcc0');
    expect(keyFromBytes(Uint8Array.of(0xed, 0xa0, 0x80))).toBe('\udced\udca0\udc80'); // an encoded surrogate
    expect(keyFromBytes(Uint8Array.of(0xc0, 0x80))).toBe('\udcc0\udc80'); // overlong NUL
    expect(keyFromBytes(Uint8Array.of(0xf4, 0x90, 0x80, 0x80))).toBe('\udcf4\udc90\udc80\udc80'); // > U+10FFFF
    expect(keyFromBytes(Uint8Array.of(0xc3, 0xa9, 0xff, 0xc3))).toBe('é\udcff\udcc3');
    expect(keyFromBytes(Uint8Array.of(0xf0, 0x9f, 0x98, 0x80, 0x80))).toBe('😀\udc80');
  });

  it('rejects strings that name no byte string, saying why', () => {
    expect(() => keyBytes('a\ud800')).toThrow(/names no byte string: lone surrogate U\+D800 at index 1/);
    expect(() => keyBytes('\udc7f')).toThrow(/lone surrogate U\+DC7F at index 0/);
    expect(() => keyBytes('\ude00')).toThrow(/lone surrogate U\+DE00/);
    expect(() => keyBytes('\udcc3\udca9')).toThrow(/escaped bytes spell UTF-8 text: write it as "é"/);
    expect(() => keyBytes('\ud83d\udc80\udc80')).not.toThrow(); // a pair, then one raw byte
    expect(Array.from(keyBytes('\ud83d\udc80\udc80'))).toEqual([0xf0, 0x9f, 0x92, 0x80, 0x80]);
  });
});

describe('byte order', () => {
  it('compareKeys and orderKey agree with bytes.Compare (Buffer.compare) on random keys', () => {
    const rng = new Rng(18);
    const bad: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const a = randomBytes(rng, 6);
      // a shared prefix in a third of the pairs, so that comparisons reach past the first byte
      const b =
        rng.next() < 0.3
          ? Uint8Array.from([...a.subarray(0, rng.int(a.length + 1)), ...randomBytes(rng, 3)])
          : randomBytes(rng, 6);
      const [ka, kb] = [keyFromBytes(a), keyFromBytes(b)];
      const want = Buffer.compare(Buffer.from(a), Buffer.from(b));
      const [oa, ob] = [orderKey(ka), orderKey(kb)];
      if (compareKeys(ka, kb) !== want || sign(oa < ob ? -1 : oa > ob ? 1 : 0) !== want)
        bad.push(`${JSON.stringify(ka)} vs ${JSON.stringify(kb)}`);
    }
    expect(bad).toEqual([]);
  });

  it('differs from UTF-16 order exactly where etcd does', () => {
    expect(compareKeys('\uffff', '😀')).toBe(-1);
    expect('\uffff' < '😀').toBe(false);
    expect(compareKeys('\udc80', 'é')).toBe(-1);
    expect('\udc80' < 'é').toBe(false);
    expect(orderKey('/registry/pods/a')).toBe('/registry/pods/a'); // ASCII keys are their own order key
  });

  it('inRange uses byte order', () => {
    expect(inRange('😀', '\uffff', upperBound('\udcf1'))).toBe(true);
    expect(inRange('😀', '\uffff', upperBound('\u0000'))).toBe(true);
    expect(inRange('é', '\uffff', upperBound('\u0000'))).toBe(false);
    expect(inRange('a', 'a', upperBound(undefined))).toBe(true);
  });
});

describe('prefixEnd (clientv3.GetPrefixRangeEnd on the key bytes)', () => {
  it('matches getPrefix on random byte prefixes', () => {
    const rng = new Rng(19);
    const bad: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const b = randomBytes(rng, 5);
      const got = keyBytes(prefixEnd(keyFromBytes(b)));
      if (!Buffer.from(got).equals(Buffer.from(getPrefix(b)))) bad.push(JSON.stringify(keyFromBytes(b)));
    }
    expect(bad).toEqual([]);
  });

  it.each([
    ['/registry/pods/', '/registry/pods0'],
    ['a\u007f', 'a\udc80'],
    ['é', 'ê'],
    ['ÿ', '\udcc3\udcc0'],
    ['a\udcff', 'b'],
    ['\udcff\udcff', '\u0000'],
    ['', '\u0000'],
  ])('prefixEnd(%j) = %j', (prefix, end) => {
    expect(prefixEnd(prefix)).toBe(end);
  });
});

describe('Keyspace (clientv3/namespace prefixInterval, util_test.go TestPrefixInterval)', () => {
  const cases: { pfx: string; key: string; end?: string; wKey: number[]; wEnd?: number[] }[] = [
    { pfx: 'pfx/', key: 'a', wKey: [...Buffer.from('pfx/a')] },
    {
      pfx: 'pfx/',
      key: 'abc',
      end: 'def',
      wKey: [...Buffer.from('pfx/abc')],
      wEnd: [...Buffer.from('pfx/def')],
    },
    {
      pfx: 'pfx/',
      key: 'abc',
      end: '\u0000',
      wKey: [...Buffer.from('pfx/abc')],
      wEnd: [...Buffer.from('pfx0')],
    },
    { pfx: '\udcff\udcff', key: 'abc', end: '\u0000', wKey: [0xff, 0xff, ...Buffer.from('abc')], wEnd: [0] },
  ];
  it.each(cases)('prefix $pfx, key $key, end $end', ({ pfx, key, end, wKey, wEnd }) => {
    const ks = new Keyspace(pfx);
    const [k, e] = ks.toEtcdRange(key, end);
    expect([...k]).toEqual(wKey);
    expect(e && [...e]).toEqual(wEnd);
    expect(ks.fromEtcd(k)).toBe(key);
  });
});

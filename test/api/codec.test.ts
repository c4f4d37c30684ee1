import { describe, expect, it } from 'vitest';
import { decode, deepCopy, encode, portableCodec, sharedCodec } from '../../src/api/codec.js';

/** Byte equality of two encodings (same content in the same key order). */
const bytesEqual = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

describe('codec', () => {
  it('round-trips Kubernetes objects exactly, including nulls and nested arrays', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', labels: { app: 'web' }, annotations: { 'x/y': 'z' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            ports: [{ containerPort: 80 }],
            resources: { requests: { cpu: '100m', memory: 1024 } },
          },
        ],
      },
      status: {
        conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null }],
        big: 2 ** 40,
        neg: -1.5,
        flag: false,
      },
    };
    const bytes = encode(obj);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(decode(bytes)).toEqual(obj);
    expect(deepCopy(obj)).toEqual(obj);
    expect(deepCopy(obj)).not.toBe(obj);
  });

  it('earlier encodings stay valid after many later ones (buffers are not reused under us)', () => {
    const first = encode({ n: 0, s: 'first' });
    const copies = [first.slice()];
    const all = [first];
    for (let i = 1; i < 5000; i++) {
      const b = encode({ n: i, s: 'x'.repeat(i % 50) });
      all.push(b);
      if (i % 1000 === 0) copies.push(b.slice());
    }
    expect(bytesEqual(all[0]!, copies[0]!)).toBe(true);
    expect(decode(all[0]!)).toEqual({ n: 0, s: 'first' });
    expect(decode(all[4000]!)).toEqual({ n: 4000, s: 'x'.repeat(0) });
    expect(bytesEqual(all[3000]!, copies[3]!)).toBe(true);
  });

  it('the portable codec is self-describing: a fresh decoder reads it', async () => {
    const { Unpackr } = await import('msgpackr');
    const b = portableCodec.encode({ kind: 'Node', metadata: { name: 'n' } });
    expect(new Unpackr({ mapsAsObjects: true }).unpack(b)).toEqual({ kind: 'Node', metadata: { name: 'n' } });
    expect(portableCodec.decode(b)).toEqual({ kind: 'Node', metadata: { name: 'n' } });
  });

  it('the shared codec round-trips many object shapes (dynamic label keys) and stays compact', () => {
    const objs = Array.from({ length: 3000 }, (_, i) => ({
      kind: 'Pod',
      metadata: { name: `p${i}`, labels: { [`k${i % 97}`]: 'v', [`j${i % 13}`]: String(i) } },
      spec:
        i % 3 ? { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } : { nodeName: 'n' },
    }));
    const bytes = objs.map((o) => sharedCodec.encode(o));
    objs.forEach((o, i) => expect(sharedCodec.decode(bytes[i]!)).toEqual(o));
    expect(bytes[2999]!.length).toBeLessThan(portableCodec.encode(objs[2999]).length);
  });
});

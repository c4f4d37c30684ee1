import { describe, it, expect } from 'vitest';
import { MemoryStore } from '../../src/store/index.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('MemoryStore txn atomicity', () => {
  // etcd 3.4.23 panics on this txn (docs/store-etcd.md); kubesim rejects it and applies nothing
  it.each([[{ ignoreValue: true }], [{ ignoreLease: true, value: enc('2') }]])(
    'a delete-to-end followed by an ignore* put of a deleted key is rejected whole (%j)',
    async (extra) => {
      const s = new MemoryStore();
      await s.put({ key: 'a', value: enc('1') });
      await s.put({ key: 'b', value: enc('1') });
      const before = s.revision;
      await expect(
        s.txn({
          success: [
            { requestDeleteRange: { key: 'a', rangeEnd: '\0' } },
            { requestPut: { key: 'b', value: new Uint8Array(), ...extra } },
          ],
        }),
      ).rejects.toThrow('key not found');
      expect(s.revision).toBe(before);
      const r = await s.range({ key: '\0', rangeEnd: '\0' });
      expect(r.kvs.map((kv) => kv.key)).toEqual(['a', 'b']);
    },
  );

  it('an ignoreValue put of a key outside the deleted range still works', async () => {
    const s = new MemoryStore();
    await s.put({ key: 'a', value: enc('1') });
    await s.put({ key: 'z', value: enc('9') });
    const r = await s.txn({
      success: [
        { requestDeleteRange: { key: 'b', rangeEnd: '\0' } },
        { requestPut: { key: 'a', value: new Uint8Array(), ignoreValue: true } },
      ],
    });
    expect(r.succeeded).toBe(true);
    expect((await s.range({ key: 'a' })).kvs[0].version).toBe(2);
    expect((await s.range({ key: 'z' })).kvs).toHaveLength(0);
  });
});

/**
 * The MemoryStore's record columns (src/store/memory/records.ts): values stored as forward deltas
 * read back byte for byte, at every depth of a delta chain and after compaction renumbers them,
 * and the deltas actually save the bytes they are for. The store-level behaviour (ranges at old
 * revisions, watch replay, prevKv, compaction) is checked against a naive model in
 * memory-internals.test.ts with values of the same kind.
 */
import { describe, expect, it } from 'vitest';
import { NO_RECORD, Records } from '../../src/store/memory/records.js';
import { Rng } from '../../src/util/rng.js';

/** an edit of `prev`: bytes replaced, inserted or removed at a random place */
function edited(rng: Rng, prev: Uint8Array): Uint8Array {
  const at = rng.int(prev.length);
  const cut = rng.int(Math.min(16, prev.length - at) + 1);
  const ins = Uint8Array.from({ length: rng.int(16) }, () => rng.int(4));
  const out = new Uint8Array(prev.length - cut + ins.length);
  out.set(prev.subarray(0, at));
  out.set(ins, at);
  out.set(prev.subarray(at + cut), at + ins.length);
  return out;
}

describe('Records', () => {
  for (const seed of [1, 2, 3]) {
    it(`values read back exactly, before and after compaction (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const recs = new Records(4, 4096);
      const plain: Uint8Array[] = [];
      const last = [NO_RECORD, NO_RECORD, NO_RECORD];
      let bytes = 0;
      for (let i = 0; i < 600; i++) {
        const key = rng.int(3);
        const prev = last[key];
        let value: Uint8Array;
        if (rng.int(20) === 0)
          value = new Uint8Array(0); // a tombstone's empty value
        else if (prev === NO_RECORD || plain[prev].length < 8 || rng.int(15) === 0)
          value = Uint8Array.from({ length: 8 + rng.int(600) }, () => rng.int(4));
        else value = edited(rng, plain[prev]);
        // now and then the delta's base is another key's record (a key's first value in the store)
        const base = i > 0 && rng.int(4) === 0 ? rng.int(i) : prev;
        if (base !== prev && value.length > 0 && plain[base].length >= 8) value = edited(rng, plain[base]);
        const r = recs.add(key, prev, i + 2, 2, 1, 0, value, base);
        expect(r).toBe(i);
        plain.push(value.slice());
        value.fill(9); // the writer's buffer is reused: the store must have copied
        last[key] = r;
        bytes += plain[i].length;
      }
      for (let r = 0; r < recs.n; r++) expect(recs.value(r)).toEqual(plain[r]);
      // the deltas store far fewer bytes than the values (whole, they would need ~bytes/4096 blocks)
      expect(recs.blockCount).toBeLessThan(bytes / 4096 / 3);
      // keep every other record from the middle on: kept deltas whose base went are stored whole
      const keep = Int32Array.from({ length: recs.n }, (_, i) => i).filter(
        (r) => r >= 200 && (r % 2 === 0 || r > 400),
      );
      const renumber = new Int32Array(recs.n).fill(NO_RECORD);
      const out = recs.compacted(keep, renumber, 4096);
      expect(out.n).toBe(keep.length);
      for (const r of keep) {
        expect(out.value(renumber[r])).toEqual(plain[r]);
        expect(out.mod[renumber[r]]).toBe(r + 2);
      }
    });
  }
});

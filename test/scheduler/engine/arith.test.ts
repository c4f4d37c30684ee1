// idiv / idivInv must equal Go's int64 division on non-negative operands, also where the f64
// quotient rounds across an integer (huge memory sizes), checked against BigInt.
import { describe, expect, it } from 'vitest';
import { idiv, idivInv } from '../../../src/scheduler/engine/js.js';
import { numFeasibleNodesToFind } from '../../../src/scheduler/engine/types.js';
import { Rng } from '../../../src/util/rng.js';

describe('exact integer division on f64', () => {
  it('matches BigInt floor division for random operands up to 2^50', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 20000; i++) {
      const b = Math.floor(rng.next() * 2 ** (1 + rng.int(44))) + 1;
      const q = rng.int(101);
      const a = Math.min(2 ** 50, q * b + (rng.next() < 0.5 ? b - 1 : rng.int(Math.min(b, 2 ** 31))));
      const want = Number(BigInt(a) / BigInt(b));
      expect(idiv(a, b)).toBe(want);
      expect(idivInv(a, b, 1 / b)).toBe(want);
    }
  });
  it('corrects the multiply-by-reciprocal estimate where it lands one below (exact multiples)', () => {
    const rng = new Rng(4);
    let naiveWrong = 0;
    for (let i = 0; i < 20000; i++) {
      const b = Math.floor(rng.next() * 2 ** 40) + 3;
      const q = 1 + rng.int(100);
      const a = q * b; // exact multiple: a * (1/b) may round to q - ε
      if (Math.floor(a * (1 / b)) !== q) naiveWrong++;
      expect(idivInv(a, b, 1 / b)).toBe(q);
    }
    expect(naiveWrong).toBeGreaterThan(0);
  });
});

describe('numFeasibleNodesToFind (schedule_one.go)', () => {
  it('adaptive percentage', () => {
    expect(numFeasibleNodesToFind(undefined, 50)).toBe(50);
    expect(numFeasibleNodesToFind(undefined, 100)).toBe(100);
    expect(numFeasibleNodesToFind(undefined, 1000)).toBe(420);
    expect(numFeasibleNodesToFind(undefined, 5000)).toBe(500);
    expect(numFeasibleNodesToFind(undefined, 6000)).toBe(300); // 50 - 48 = 2% → clamped to 5%
    expect(numFeasibleNodesToFind(undefined, 15000)).toBe(750);
    expect(numFeasibleNodesToFind(10, 1000)).toBe(100);
    expect(numFeasibleNodesToFind(10, 500)).toBe(100); // at least minFeasibleNodesToFind
  });
});

describe('engine entry point', () => {
  it('createKernel returns both kernels and rejects unknown names', async () => {
    const { createKernel } = await import('../../../src/scheduler/engine/index.js');
    expect(createKernel('js').name).toBe('js');
    expect(createKernel('wasm').name).toBe('wasm');
    expect(() => createKernel('gpu' as never)).toThrow(/unknown scheduler kernel "gpu"/);
  });
});

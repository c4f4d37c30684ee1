// Seeded JSON-like values for the interning tests (test/api/intern*.test.ts).
import { expect } from 'vitest';
import type { Rng } from '../../src/util/rng.js';

/** object fields: a few plain names, and names whose values are shared between decodes */
export const FIELDS = ['f0', 'f1', 'f2', 'f3', 'labels', 'containers', 'tolerations', 'ownerReferences'];

/** a seeded JSON-like value: objects, arrays, null, numbers, booleans, strings of every kind */
export function randomValue(rng: Rng, depth: number): unknown {
  const pick = rng.int(depth > 3 ? 5 : 8);
  switch (pick) {
    case 0:
      return null;
    case 1: {
      // values an exact key of a shared sub-object must tell apart
      const edge = rng.int(12);
      if (edge === 1) return 0;
      if (edge === 2) return '0';
      if (edge === 3) return undefined;
      if (edge === 4) return 0.5;
      return rng.int(1000) - 500;
    }
    case 2:
      return rng.int(2) === 0;
    case 3: {
      // few distinct values (conditions' "True", a namespace): interned and shared
      return ['True', 'False', 'ns-1', 'worker-17', 'zone-a'][rng.int(5)];
    }
    case 4: {
      // many distinct values, long enough for V8 to slice them (≥ 13 characters)
      const n = rng.int(300_000);
      const kind = rng.int(20);
      if (kind === 0) return 'x'.repeat(300) + n; // longer than the table takes
      if (kind === 1) return `lone \ud800 surrogate ${n}`;
      if (kind === 2) return `ünïcödé-näme-${n}-😀`;
      return `pod-name-${n}-abcdefgh`;
    }
    case 5:
    case 6: {
      const o: Record<string, unknown> = {};
      const k = rng.int(6);
      for (let i = 0; i < k; i++) o[FIELDS[rng.int(FIELDS.length)]] = randomValue(rng, depth + 1);
      return o;
    }
    default: {
      const a: unknown[] = [];
      const k = rng.int(5);
      for (let i = 0; i < k; i++) a.push(randomValue(rng, depth + 1));
      return a;
    }
  }
}

export function expectFrozen(v: unknown): void {
  if (v === null || typeof v !== 'object') return;
  expect(Object.isFrozen(v)).toBe(true);
  for (const x of Object.values(v)) expectFrozen(x);
}

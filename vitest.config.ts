import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // a guard against hangs, not a speed check: compute-bound tests (seeded fuzzing, window vs
    // general scheduler walks, simulations) took up to 32 s at a load average of 27 on 2 CPUs, and
    // would pass the old 60 s limit on a busier machine; speed is checked by `kubesim bench`
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

import { ManualClock } from '../../src/util/clock.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { runKvStoreConformance } from './conformance.js';

runKvStoreConformance('MemoryStore', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore({ clock });
  return {
    store,
    advanceLeaseTime: async (ms) => {
      clock.advance(ms);
      await store.settle();
    },
    cleanup: () => store.close(),
  };
});

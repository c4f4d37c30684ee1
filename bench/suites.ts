/** Every bench suite, in the order `kubesim bench all` runs them. A new suite is one line here. */
import type { BenchSuite } from './harness.js';
import { suite as api } from './api.js';
import { suite as capacity } from './capacity.js';
import { suite as proxy } from './proxy.js';
import { suite as schedulerFramework } from './scheduler-framework.js';
import { suite as schedulerPlugins } from './scheduler-plugins.js';
import { suite as scheduler } from './scheduler.js';
import { suite as shard } from './shard.js';
import { suite as sim } from './sim.js';
import { suite as store } from './store.js';
import { suite as watch } from './watch.js';

export const SUITES: readonly BenchSuite[] = [
  api,
  capacity,
  proxy,
  schedulerFramework,
  schedulerPlugins,
  scheduler,
  shard,
  sim,
  store,
  watch,
];

/**
 * Plugs the real kube-scheduler model (src/scheduler: SchedulingQueue, framework plugins, the JS
 * node-local kernel) into a simulation as one more process that watches pods and nodes and binds
 * through the ApiServer.
 */
import type { ApiClient } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import { Scheduler } from '../scheduler/scheduler.js';
import type { Clock } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import type { SchedulerComponent } from './standin-scheduler.js';

export interface SchedulerDeps {
  api: ApiClient;
  clock: Clock;
  informers: InformerFactory;
  recorder: EventRecorder;
  rng: Rng;
}

export async function createScheduler(deps: SchedulerDeps): Promise<SchedulerComponent> {
  const s = new Scheduler({ api: deps.api, informers: deps.informers, clock: deps.clock, recorder: deps.recorder, seed: deps.rng.nextU32() });
  return {
    start: () => s.start(),
    stop: () => { void s.stop(); },
    get stats() { return s.stats; },
  };
}

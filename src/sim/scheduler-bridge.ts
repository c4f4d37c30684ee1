/**
 * Plugs the real kube-scheduler model (src/scheduler) into a simulation as one more process
 * watching and binding through the ApiServer. Returns undefined when src/scheduler does not (yet)
 * export a runnable scheduler; the simulation then uses the stand-in and says so in its report.
 */
import type { ApiClient } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
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

export async function createScheduler(_deps: SchedulerDeps): Promise<SchedulerComponent | undefined> {
  return undefined;
}

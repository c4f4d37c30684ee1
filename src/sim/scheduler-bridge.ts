/**
 * Plugs the real kube-scheduler model (src/scheduler: SchedulingQueue, framework plugins, the JS
 * node-local kernel) into a simulation as one more process that watches pods and nodes and binds
 * through the ApiServer.
 *
 * The scheduler's own loop would schedule every queued pod in zero virtual time. Here each
 * scheduling cycle costs `cycleMs` of virtual time (default 2 ms, i.e. at most 500 pods/s, in the
 * range kube-scheduler reaches on large clusters), so throughput and scheduling latency mean
 * something. When the queue is empty the loop sleeps until a pod event arrives or the queue's 1 s
 * backoff flush may have released a pod.
 */
import type { Pod } from '../api/types.js';
import type { ApiClient } from '../client/api.js';
import type { EventRecorder } from '../client/events.js';
import type { InformerFactory } from '../client/factory.js';
import { Scheduler, type SchedulerCoreOptions } from '../scheduler/scheduler.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import type { SchedulerComponent } from './standin-scheduler.js';

export interface SchedulerDeps
  extends Pick<SchedulerCoreOptions, 'config' | 'outOfTree' | 'extraScore' | 'extraFilter'> {
  api: ApiClient;
  clock: Clock;
  informers: InformerFactory;
  recorder: EventRecorder;
  rng: Rng;
  cycleMs?: number;
}

export async function createScheduler(deps: SchedulerDeps): Promise<SchedulerComponent> {
  const s = new Scheduler({
    api: deps.api,
    informers: deps.informers,
    clock: deps.clock,
    recorder: deps.recorder,
    seed: deps.rng.nextU32(),
    config: deps.config,
    outOfTree: deps.outOfTree,
    extraScore: deps.extraScore,
    extraFilter: deps.extraFilter,
  });
  const cycleMs = deps.cycleMs ?? 2;
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: TimerHandle | undefined;
  const sleep = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      const done = () => {
        if (timer) deps.clock.clearTimer(timer);
        timer = undefined;
        wake = undefined;
        resolve();
      };
      timer = deps.clock.setTimer(done, ms);
      if (wakeable) wake = done;
    });
  deps.informers.for<Pod>('pods').addEventHandler({
    onAdd: (p) => {
      if (!p.spec.nodeName) wake?.();
    },
    onUpdate: (_o, p) => {
      if (!p.spec.nodeName) wake?.();
    },
    onDelete: () => wake?.(),
  });
  deps.informers.for('nodes').addEventHandler({ onAdd: () => wake?.(), onUpdate: () => wake?.() });
  const loop = async () => {
    while (!stopped) {
      if (s.queue.lengths.active === 0) {
        await sleep(1000, true);
        continue;
      }
      await sleep(cycleMs, false);
      if (stopped) break;
      try {
        await s.scheduleOne();
      } catch {
        // an ApiServer failure inside a cycle (e.g. 429 past the retries): the pod stays queued
      }
    }
  };
  return {
    start: async () => {
      await deps.informers.start();
      s.queue.run();
      void loop();
    },
    stop: () => {
      stopped = true;
      if (timer) deps.clock.clearTimer(timer);
      s.queue.close();
    },
    get stats() {
      return s.stats;
    },
  };
}

/**
 * The HPA controller in a simulation over a metric curve — the example scenario
 * examples/scenarios/batch-autoscale-drain.yaml, whose numbers its description works by hand.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CronJob, HorizontalPodAutoscaler, PodDisruptionBudget } from '../../src/api/batch-types.js';
import type { Pod } from '../../src/api/types.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

describe('batch-autoscale-drain example: HPA, CronJob and a drain blocked by a PDB', () => {
  it('gives the hand-checked numbers', async () => {
    const sim = new Simulation(
      loadScenario(join(__dirname, '../../examples/scenarios/batch-autoscale-drain.yaml')),
    );
    const r = await sim.run();
    const rescales = r.events
      .filter((e) => e.reason === 'SuccessfulRescale')
      .map((e) => [e.lastSeen, e.message.replace(/;.*/, '')]);
    expect(rescales).toEqual([
      [120, 'New size: 4'],
      [135, 'New size: 8'],
      [900, 'New size: 2'],
    ]);
    const hpa = (await sim.server.get<HorizontalPodAutoscaler>(
      'horizontalpodautoscalers',
      'default',
      'web',
    ))!;
    expect(hpa.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 2 });
    const cond = Object.fromEntries(hpa.status!.conditions!.map((c) => [c.type, [c.status, c.reason]]));
    expect(cond.AbleToScale).toEqual(['True', 'ReadyForNewScale']);
    expect(cond.ScalingActive).toEqual(['True', 'ValidMetricFound']);
    // 500m over 2 pods is 50 %: exactly the target, within range
    expect(cond.ScalingLimited).toEqual(['False', 'DesiredWithinRange']);
    expect(hpa.status!.currentMetrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', current: { averageUtilization: 50, averageValue: '250m' } },
      },
    ]);
    // CronJob: runs at 00:05, 00:10, 00:15
    const cj = (await sim.server.get<CronJob>('cronjobs', 'default', 'report'))!;
    expect(cj.status?.lastScheduleTime).toBe('2026-01-01T00:15:00Z');
    expect(sim.cm.cronjob.jobsCreated).toBe(3);
    // the drain: both db pods refused every 5 s from 4m to 16m (145 attempts each), still Running
    expect(r.drains).toEqual([
      { node: 'w-0000', atS: 240, pods: 2, evicted: 0, refusals: 290, lastEvictionAtS: null, doneAtS: null },
    ]);
    const db = (await sim.server.list<Pod>('pods')).items.filter((p) => p.metadata.labels?.app === 'db');
    expect(db.map((p) => [p.spec.nodeName, p.status?.phase, !!p.metadata.deletionTimestamp])).toEqual([
      ['w-0000', 'Running', false],
      ['w-0000', 'Running', false],
    ]);
    const pdb = (await sim.server.get<PodDisruptionBudget>('poddisruptionbudgets', 'default', 'db'))!;
    expect(pdb.status).toMatchObject({
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 2,
      disruptionsAllowed: 0,
    });
  });
});

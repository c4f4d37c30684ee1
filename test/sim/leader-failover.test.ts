import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { loadScenario } from '../../src/sim/scenario.js';
import { simulate } from '../../src/sim/simulation.js';

describe('leader election in a simulation', () => {
  it('the standby controller-manager takes over ~leaseDuration after the leader crashes; work waits for it', async () => {
    const r = await simulate(loadScenario(join(__dirname, '../../examples/scenarios/leader-failover.yaml')));
    const cm = r.leaders.filter((l) => l.component === 'controller-manager');
    const sched = r.leaders.filter((l) => l.component === 'scheduler');
    expect(sched.length).toBe(1); // the scheduler leader never changed
    expect(cm.length).toBe(2);
    expect(cm[0].identity).not.toBe(cm[1].identity);
    const takeover = cm[1].atS - 60;
    expect(takeover).toBeGreaterThanOrEqual(15 - 2); // last renewal up to one retry period before the crash
    expect(takeover).toBeLessThanOrEqual(15 + 2 + 1);
    // the scale-up at 62 s completed only after the new leader started
    const scale = r.timeline.find((t) => t.label.startsWith('scale'))!;
    expect(scale.convergedAfterS).not.toBeNull();
    expect(62 + scale.convergedAfterS!).toBeGreaterThan(cm[1].atS);
    expect(r.deployments[0]).toMatchObject({ replicas: 8, available: 8 });
  });
});

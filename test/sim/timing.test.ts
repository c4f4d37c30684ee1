// `simulate` and `demo` report where the wall time went (src/sim/timing.ts): every component named,
// the components adding up to the sampled wall time, events and requests per second.
import { describe, expect, it } from 'vitest';
import { COMPONENTS, type Timing } from '../../src/sim/timing.js';
import { kubesim } from '../cli/harness.js';

describe('timing: where the wall time goes', () => {
  // 300 nodes: the CPU sampler runs every 10 ms (sim/timing.ts), and at 30 nodes the ReplicaSet
  // controller's ~8 ms of work often drew no sample at all
  it('demo -o json has a timing section whose components add up to the sampled wall time', () => {
    const r = kubesim(['demo', '--nodes', '300', '--seed', '2', '--no-progress', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { wallMs: number; timing: Timing };
    const t = out.timing;
    expect(t.components.map((c) => c.name)).toEqual([...COMPONENTS]);
    const sum = t.components.reduce((a, c) => a + c.ms, 0);
    // each component is rounded to 0.1 ms
    expect(Math.abs(sum - t.profiledMs)).toBeLessThanOrEqual(0.05 * COMPONENTS.length + 0.05);
    expect(Math.abs(t.components.reduce((a, c) => a + c.percent, 0) - 100)).toBeLessThan(1);
    // the samples cover the run (set-up included) and the summary, not much more
    expect(t.profiledMs).toBeGreaterThanOrEqual(out.wallMs * 0.95);
    expect(t.profiledMs).toBeLessThan(out.wallMs + 5000);
    // a simulation spends its time in the control plane's components, not in "other"
    for (const name of [
      'api: encode (msgpackr)',
      'controllers',
      'scheduler',
      'watch fan-out: hub and informers',
    ])
      expect(t.components.find((c) => c.name === name)!.ms).toBeGreaterThan(0);
    const controllers = t.controllers.reduce((a, c) => a + c.ms, 0);
    expect(controllers).toBeLessThanOrEqual(
      t.components.find((c) => c.name === 'controllers')!.ms + 0.05 * t.controllers.length,
    );
    expect(t.controllers.map((c) => c.name)).toContain('replicaset');
    expect(t.watchEventsPerSecond).toBeGreaterThan(0);
    expect(t.requestsPerSecond).toBeGreaterThan(0);
  });

  it('the table output shows the components and the rates', () => {
    const r = kubesim(['demo', '--nodes', '20', '--seed', '2', '--no-progress']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /Where the wall time went \([\d.]+s sampled every 10ms; \d+ watch events\/s, \d+ API requests\/s\):/,
    );
    expect(r.stdout).toMatch(/^COMPONENT\s+WALL\s+SHARE$/m);
    expect(r.stdout).toMatch(/^controllers \(.*\)\s+[\d.]+s\s+[\d.]+%$/m);
  });
});

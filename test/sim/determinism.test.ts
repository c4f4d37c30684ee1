// Speed and memory work must not change what a simulation computes: seeded runs through the CLI give
// the same JSON (pods, latencies, series, events, API counters) as the recorded outputs in
// test/fixtures/sim-golden/, which were written by commit 7176203 with the commands below. Only the
// wall-clock figures (wallMs, simSecondsPerWallSecond, timing) may differ. A change that means to
// alter simulated outcomes rewrites the fixtures with the same commands and says why. (The API request
// counters grew by 3 when the scheduler started listing DeviceClasses, ResourceClaims and
// ResourceSlices for the DynamicResources plugin, as kube-scheduler does; nothing else changed.)
// statefulset-zonal-volumes.json was rewritten with its command when scenarios took v1.34's 50 s
// node-monitor-grace-period (NodeNotReady 10 s later) and VolumeBinding's reason its v1.33 wording.
// The request counters of the runs with the real scheduler grew by 1 when it started listing
// CSIStorageCapacities for VolumeBinding's capacity check (one more informer); nothing else changed.
// statefulset-zonal-volumes.json was rewritten with its command when the kubelet started waiting for
// a pod's claims to be Bound (WaitForAttachAndMount): each replica starts ~6 s later (the class's 5 s
// provisioning latency, checked once a second; 24 more GETs); the runs without claims are unchanged.
// It was rewritten again when VolumeBinding's PreBind started waiting for the claims to be bound
// before binding the pod (BindPodVolumes): the scheduling latency now includes that wait (p50 4 ms →
// 6 s: the 5 s provisioning latency, polled once a second) and the kubelet finds the claims bound,
// so 18 fewer requests; the runs without claims are unchanged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubesim, root } from '../cli/harness.js';

const golden = join(root, 'test/fixtures/sim-golden');

const RUNS: [fixture: string, args: string[]][] = [
  ['demo-60.json', ['demo', '--nodes', '60', '--seed', '3']],
  ['envelope-mini.json', ['simulate', 'test/fixtures/sim-golden/envelope-mini.yaml']],
  [
    'statefulset-zonal-volumes.json',
    ['simulate', 'examples/scenarios/statefulset-zonal-volumes.yaml', '--seed', '5'],
  ],
  ['leader-failover.json', ['simulate', 'examples/scenarios/leader-failover.yaml', '--seed', '5']],
  [
    'batch-autoscale-drain.json',
    ['simulate', 'examples/scenarios/batch-autoscale-drain.yaml', '--seed', '5'],
  ],
];

/** the result without what depends on the machine's speed */
function outcome(json: string): Record<string, unknown> {
  const { wallMs: _w, simSecondsPerWallSecond: _s, timing: _t, ...rest } = JSON.parse(json);
  return rest;
}

describe('seeded simulations compute what they computed before the speed and memory work', () => {
  for (const [fixture, args] of RUNS) {
    it(`kubesim ${args.join(' ')}`, () => {
      const r = kubesim([...args, '--events', '--no-progress', '-o', 'json']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(outcome(r.stdout)).toEqual(outcome(readFileSync(join(golden, fixture), 'utf8')));
    });
  }
});

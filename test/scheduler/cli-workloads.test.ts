// `kubesim schedule` and `kubesim explain` take workloads as `plan` does: a Deployment's replicas,
// a StatefulSet's ordinals, a DaemonSet's pod per eligible node (pinned there), and never schedule a
// pod with schedulingGates. Through the real CLI entry, on the fixture cluster (three 2-CPU workers,
// two tainted control-plane nodes).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/index.js';

const F = 'test/scheduler/fixtures';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
  try {
    const code = await main(['node', 'kubesim', ...args]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('kubesim schedule with workloads', () => {
  it('schedules per-node daemon pods, replicas and ordinals in order (hand-checked); leaves the gated pod alone', async () => {
    const r = await cli(
      'schedule',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pod',
      `${F}/workloads.yaml`,
      '-o',
      'json',
    );
    expect(r.code).toBe(0);
    expect(r.err).toBe('warning: not used by schedule: 1 ConfigMap (--pod)\n');
    const j = JSON.parse(r.out);
    const by = Object.fromEntries(j.placements.map((p: { pod: string }) => [p.pod, p]));
    expect(Object.keys(by)).toEqual([
      'kube-system/agent-worker-1',
      'kube-system/agent-worker-2',
      'kube-system/agent-worker-3',
      'default/web-0',
      'default/web-1',
      'default/web-2',
      'default/cache-0',
      'default/cache-1',
      'default/gated',
    ]);
    // the daemon pods go to the node they are pinned to; the tainted control-plane nodes get none
    for (const n of ['worker-1', 'worker-2', 'worker-3']) expect(by[`kube-system/agent-${n}`].node).toBe(n);
    expect(by['default/gated']).toEqual({
      pod: 'default/gated',
      result: 'SchedulingGated',
      message: 'SchedulingGated: waiting for scheduling gates example.com/quota',
    });
    // by hand: free cpu after the bound pods is 800m / 1000m / 500m on worker-1/2/3; the agents
    // take 100m each (700/900/400); web-0 → worker-2, web-1 → worker-1 (200/400/400), so web-2's
    // 500m fits nowhere; cache-0 and cache-1 (200m) still fit
    expect(by['default/web-2'].result).toBe('Unschedulable');
    expect(by['default/web-2'].message).toContain('3 Insufficient cpu');
    expect(j).toMatchObject({ scheduled: 7, unschedulable: 1, gated: 1 });
    const text = await cli('schedule', '--cluster', `${F}/cluster.yaml`, '--pod', `${F}/workloads.yaml`);
    expect(text.out).toMatch(/\n7 scheduled, 1 unschedulable, 1 gated\n$/);
  });
});

describe('kubesim explain with workloads', () => {
  it("explains a DaemonSet's pod and reports a gated pod as Pending without a cycle", async () => {
    const ds = await cli('explain', '--cluster', `${F}/cluster.yaml`, '--pod', `${F}/workloads.yaml`);
    expect(ds.code).toBe(0);
    // the template with the daemon tolerations: still not the control-plane taint
    expect(ds.out).toMatch(/^Pod kube-system\/agent \(profile default-scheduler\): scheduled to worker-\d/);
    expect(ds.out).toContain('✗ TaintToleration');
    const gatedFile = `${F}/gated-pod.yaml`;
    const gated = await cli(
      'explain',
      '--cluster',
      `${F}/cluster.yaml`,
      '--pod',
      gatedFile,
      '--fail-on-unschedulable',
    );
    expect(gated.out).toBe(
      'Pod default/gated: Pending (SchedulingGated: waiting for scheduling gates example.com/quota; kube-scheduler does not try a pod until its gates are removed)\n',
    );
    expect(process.exitCode).toBe(4);
  });
});

// Client-side rate limits (client-go's QPS/burst token bucket per client) and the recovered zone's
// kubelets, through `kubesim simulate`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubesim, kubesimInProcess } from '../cli/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-ratelimit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  api: { clientThrottled: number; tooManyRequests: number };
  series: { t: number[]; pending: number[]; running: number[]; throttled: number[] };
}

async function run(name: string, yaml: string): Promise<Result> {
  const f = join(dir, name);
  writeFileSync(f, yaml);
  const r = await kubesimInProcess(['simulate', f, '-o', 'json', '--no-progress']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Result;
}

const scaleUp = (limits: boolean, duration = '40s') => `
duration: ${duration}
cluster: { pools: [{ name: w, count: 10, cpu: "64", memory: 256Gi }] }
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec:
        replicas: 1
        selector: { matchLabels: { app: web } }
        template:
          metadata: { labels: { app: web } }
          spec: { containers: [{ name: c, image: x, resources: { requests: { cpu: 10m } } }] }
timeline:
  - { at: 10s, action: scale, deployment: web, replicas: 201 }
settings: { sampleEvery: 1s, clientRateLimits: ${limits} }
`;

describe('client-side rate limits', () => {
  it("the ReplicaSet controller creates pods at kube-controller-manager's 20 qps after a burst of 30", async () => {
    const r = await run('limited.yaml', scaleUp(true));
    const pods = r.series.t.map((_, i) => r.series.pending[i] + r.series.running[i]);
    // worked by hand: 1 pod before; at 10 s the bucket's 30 tokens go at once, then 20 per second
    // (slow-start batches 1, 2, 4 … 128 ask for more than that each second) until 201 at 19 s
    expect(pods.slice(9, 21)).toEqual([1, 31, 51, 71, 91, 111, 131, 151, 171, 191, 201, 201]);
    expect(r.api.clientThrottled).toBeGreaterThanOrEqual(170);
    const free = await run('free.yaml', scaleUp(false));
    const freePods = free.series.t.map((_, i) => free.series.pending[i] + free.series.running[i]);
    expect(freePods.slice(9, 12)).toEqual([1, 201, 201]);
    expect(free.api.clientThrottled).toBe(0);
  });

  it('a zone of 300 nodes that comes back does not renew its Leases in lockstep', async () => {
    const r = await run(
      'zone.yaml',
      `
duration: 3m
cluster: { pools: [{ name: w, count: 300, zones: [zone-a] }] }
timeline:
  - { at: 10s, action: zoneOutage, zone: zone-a }
  - { at: 60s, action: zoneRecover, zone: zone-a }
settings: { sampleEvery: 10s }
`,
    );
    // the recovery's own status updates may meet max-in-flight once; after that nothing does (with
    // every kubelet renewing in the same millisecond, 300 renewals every 10 s answered 100 429s
    // in every sample to the end)
    const after = r.series.t.map((t, i) => (t > 70 ? r.series.throttled[i] : 0));
    expect(after.every((x) => x === 0)).toBe(true);
  });

  it('a run that ends while a controller waits for a token ends (the waiting sync is dropped with the process)', () => {
    // the scale-up to 201 at 10 s needs until 19 s at 20 qps: at 12 s the ReplicaSet controller's
    // sync still waits on the virtual clock, which no longer runs
    const f = join(dir, 'throttled-at-end.yaml');
    writeFileSync(f, scaleUp(true, '12s'));
    const r = kubesim(['simulate', f, '-o', 'json', '--no-progress']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as Result & { pods: { created: number } };
    expect(out.api.clientThrottled).toBeGreaterThan(0);
    expect(out.pods.created).toBeLessThan(200);
  });
});

// The eviction subresource and PodDisruptionBudgets, over HTTP as a client sends it: a budget
// whose selector is empty covers no pod (upstream: pkg/registry/core/pod/storage/eviction.go
// getPodDisruptionBudgets, "a PDB with a nil or empty selector … should match nothing, not
// everything"); a budget that selects the pod and allows no disruption blocks it with 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

describe.skipIf(!builtCli)('eviction and PodDisruptionBudget selectors', () => {
  let srv: ServeProcess;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(srv.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  const pdb = (name: string, selector: object) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec: { minAvailable: 5, selector },
  });
  const evict = (name: string) =>
    call('POST', `/api/v1/namespaces/default/pods/${name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: 'default' },
    });
  const running = async (name: string) => {
    const end = Date.now() + 60_000;
    while (Date.now() < end) {
      const r = await call('GET', `/api/v1/namespaces/default/pods/${name}`);
      if (r.body.status?.phase === 'Running') return;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error(`pod ${name} never ran`);
  };

  beforeAll(async () => {
    srv = await startServe(['--speed', '10']);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('an empty selector covers nothing: the pod is evicted', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/pods', pod('a'))).status).toBe(201);
    expect(
      (await call('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', pdb('all', {}))).status,
    ).toBe(201);
    await running('a');
    expect((await evict('a')).status).toBe(201);
  });

  it('a selector that matches the pod blocks the eviction while no disruption is allowed', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/pods', pod('b'))).status).toBe(201);
    expect(
      (
        await call(
          'POST',
          '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
          pdb('web', { matchLabels: { app: 'web' } }),
        )
      ).status,
    ).toBe(201);
    await running('b');
    const r = await evict('b');
    expect(r.status).toBe(429);
    expect(r.body.details.causes[0].reason).toBe('DisruptionBudget');
  });
});

import { describe, expect, it } from 'vitest';
import { AdmissionChain, admissionDenied } from '../../src/api/admission.js';
import { ApiServer } from '../../src/api/apiserver.js';
import { FlowControl } from '../../src/api/flowcontrol.js';
import type { Pod } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';

describe('FlowControl', () => {
  it('validates options eagerly and counts per class', () => {
    expect(() => new FlowControl({ maxRequestsInflight: -1 })).toThrow(
      'flowControl.maxRequestsInflight must be an integer >= 0, got -1',
    );
    expect(() => new FlowControl({ maxMutatingRequestsInflight: 1.5 })).toThrow(TypeError);
    const f = new FlowControl({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    expect(f.maxRequestsInflight).toBe(1);
    expect(f.tryAcquire(false)).toBeUndefined();
    expect(f.tryAcquire(true)).toBeUndefined(); // separate budgets
    expect(f.tryAcquire(false)?.code).toBe(429);
    expect(f.tryAcquire(true)?.status()).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
    });
    f.release(false);
    expect(f.tryAcquire(false)).toBeUndefined();
    expect(f.stats()).toMatchObject({
      accepted: 3,
      rejected: 2,
      rejectedMutating: 1,
      inflight: 1,
      inflightMutating: 1,
    });
    const off = new FlowControl({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 });
    for (let i = 0; i < 1000; i++) expect(off.tryAcquire(true)).toBeUndefined();
  });
  it('defaults like kube-apiserver: 400 / 200', () => {
    const f = new FlowControl();
    expect([f.maxRequestsInflight, f.maxMutatingRequestsInflight]).toEqual([400, 200]);
  });
});

describe('AdmissionChain', () => {
  it('matches resources incl. subresources and operations; sees old objects; can deny binds', async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain()
      .addValidating('audit', (a) => {
        seen.push(
          `${a.operation} ${a.resource}${a.subresource ? '/' + a.subresource : ''} ${a.kind} ${a.name} old=${a.oldObject ? 'y' : 'n'}`,
        );
      })
      .addValidating(
        'no-node-x',
        (a) =>
          (a.object as any)?.target?.name === 'x'
            ? { allowed: false, message: 'node x is cordoned by policy' }
            : true,
        {
          resources: ['pods/binding'],
        },
      );
    const clock = new ManualClock();
    const api = new ApiServer(new MemoryStore({ clock }), { clock, admission: chain });
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    };
    const p = await api.create(pod);
    await api.updateStatus({ ...p, status: { phase: 'Running' } });
    const e = await api
      .bind({
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'a', namespace: 'default' },
        target: { kind: 'Node', name: 'x' },
      })
      .catch((x) => x);
    expect(e.code).toBe(403);
    expect(e.message).toBe('admission webhook "no-node-x" denied the request: node x is cordoned by policy');
    await api.bind({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'a', namespace: 'default' },
      target: { kind: 'Node', name: 'y' },
    });
    await api.delete('pods', 'default', 'a');
    expect(seen).toEqual([
      'CREATE pods Pod a old=n',
      'UPDATE pods/status Pod a old=y',
      'CREATE pods/binding Binding a old=y',
      'CREATE pods/binding Binding a old=y',
      'DELETE pods Pod a old=y',
    ]);
    expect(admissionDenied('h', undefined).message).toBe(
      'admission webhook "h" denied the request without explanation',
    );
    expect(admissionDenied('h', 'm', 200).code).toBe(400);
  });
});

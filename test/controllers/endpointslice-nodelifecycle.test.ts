import { describe, it, expect } from 'vitest';
import type { EndpointSlice, Pod, Service } from '../../src/api/types.js';
import {
  EndpointSliceController,
  MAX_ENDPOINTS_PER_SLICE,
  endpointPorts,
  podToEndpoint,
} from '../../src/controllers/endpointslice.js';
import { computeZoneState } from '../../src/controllers/nodelifecycle.js';
import { minTolerationMs } from '../../src/controllers/taint-eviction.js';
import { bed, settleN } from './harness.js';
import { makePod, makeService } from '../helpers/builders.js';

const pod = (name: string, ip: string, ready: boolean, extra: Partial<Pod['metadata']> = {}): Pod =>
  makePod(name)
    .uid(undefined)
    .label('app', 'web')
    .meta(extra)
    .node('n1')
    .containers({ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] })
    .status({
      phase: 'Running',
      podIP: ip,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    })
    .obj();
const svc: Service = makeService('web')
  .selector({ app: 'web' })
  .spec({ ports: [{ name: 'http', port: 80, targetPort: 'http' }] })
  .obj();

describe('EndpointSlice helpers', () => {
  it('resolves named target ports and sets ready/serving/terminating like upstream', () => {
    expect(endpointPorts(svc, pod('a', '10.0.0.1', true))).toEqual([
      { name: 'http', port: 8080, protocol: 'TCP' },
    ]);
    expect(podToEndpoint(pod('a', '10.0.0.1', true), undefined, false).conditions).toEqual({
      ready: true,
      serving: true,
      terminating: false,
    });
    expect(
      podToEndpoint(
        pod('b', '10.0.0.2', true, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
        undefined,
        false,
      ).conditions,
    ).toEqual({ ready: false, serving: true, terminating: true });
    expect(podToEndpoint(pod('c', '10.0.0.3', false), undefined, true).conditions).toEqual({
      ready: true,
      serving: true,
      terminating: false,
    });
  });

  it('splits 250 endpoints into slices of at most 100 and shrinks in place', async () => {
    const { api, informers, deps } = bed();
    const c = new EndpointSliceController(deps);
    await informers.start();
    c.run();
    await api.create('services', svc);
    for (let i = 0; i < 250; i++)
      await api.create('pods', pod(`p${String(i).padStart(3, '0')}`, `10.1.${i >> 8}.${i & 255}`, true));
    await settleN(30);
    let slices = (await api.list<EndpointSlice>('endpointslices')).items;
    expect(slices.length).toBe(3);
    expect(slices.every((s) => s.endpoints.length <= MAX_ENDPOINTS_PER_SLICE)).toBe(true);
    expect(slices.reduce((n, s) => n + s.endpoints.length, 0)).toBe(250);
    expect(
      slices.every(
        (s) =>
          s.metadata.labels!['kubernetes.io/service-name'] === 'web' &&
          s.metadata.labels!['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io',
      ),
    ).toBe(true);
    for (let i = 0; i < 250; i += 2) await api.delete('pods', 'default', `p${String(i).padStart(3, '0')}`);
    await settleN(30);
    slices = (await api.list<EndpointSlice>('endpointslices')).items;
    expect(slices.reduce((n, s) => n + s.endpoints.length, 0)).toBe(125);
    expect(slices.length).toBeLessThanOrEqual(3);
    await c.stop();
    informers.stop();
  });
});

describe('node lifecycle and taint eviction tables', () => {
  it.each([
    [['True', 'True', 'True'], 'Normal'],
    [['Unknown', 'Unknown', 'Unknown'], 'FullDisruption'],
    [['True', 'Unknown', 'Unknown'], 'Normal'], // not more than 2 not-ready
    [['True', 'Unknown', 'Unknown', 'False'], 'PartialDisruption'], // 3 of 4 ≥ 55 %
    [['True', 'True', 'Unknown', 'Unknown', 'Unknown', 'True', 'True'], 'Normal'], // 3 of 7 < 55 %
  ] as const)('ComputeZoneState %j → %s', (statuses, state) => {
    expect(computeZoneState([...statuses])).toBe(state);
  });
  it('getMinTolerationTime: no toleration → 0, no seconds → forever, else the smallest', () => {
    const t = [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' as const }];
    expect(minTolerationMs(t, [])).toBe(0);
    expect(
      minTolerationMs(t, [
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      ]),
    ).toBe(-1);
    expect(
      minTolerationMs(t, [
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        { operator: 'Exists', tolerationSeconds: 60 },
      ]),
    ).toBe(60_000);
    expect(minTolerationMs([], [])).toBe(-1);
  });
});

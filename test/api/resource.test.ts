/**
 * resource.k8s.io: conversion of the beta versions, v1 defaults, apiserver validation (upstream
 * pkg/apis/resource/validation messages) and DRA's CEL environment (quantity, semver, domains).
 */
import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { applyDefaults } from '../../src/api/defaults.js';
import { resourceObjectFromV1 } from '../../src/api/resource-convert.js';
import { lookupKind } from '../../src/api/registry.js';
import { compileSelector, deviceMatches, deviceVariable } from '../../src/api/resource-cel.js';
import { validateObject } from '../../src/api/validation.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';

function errs(obj: any): string[] {
  const info = lookupKind(obj.apiVersion, obj.kind)!;
  const o = structuredClone(obj);
  applyDefaults(o);
  return validateObject(o, info).map((e) => e.toString());
}

const claim = (devices: any, apiVersion = 'resource.k8s.io/v1') => ({
  apiVersion,
  kind: 'ResourceClaim',
  metadata: { name: 'c', namespace: 'default' },
  spec: { devices },
});

const slice = (spec: any) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: 's' },
  spec: { driver: 'gpu.example.com', pool: { name: 'n1', generation: 1, resourceSliceCount: 1 }, ...spec },
});

describe('beta versions are stored in v1 shape with v1 defaults', () => {
  it('v1beta1 requests move under exactly; devices leave basic; count defaults to 1', () => {
    const c: any = claim(
      { requests: [{ name: 'gpu', deviceClassName: 'gpu.example.com' }] },
      'resource.k8s.io/v1beta1',
    );
    applyDefaults(c);
    expect(c.apiVersion).toBe('resource.k8s.io/v1');
    expect(c.spec.devices.requests[0]).toEqual({
      name: 'gpu',
      exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 },
    });
    const s: any = {
      ...slice({
        nodeName: 'n1',
        devices: [{ name: 'g0', basic: { attributes: { model: { string: 'a' } } } }],
      }),
      apiVersion: 'resource.k8s.io/v1beta1',
    };
    applyDefaults(s);
    expect(s.spec.devices[0]).toEqual({ name: 'g0', attributes: { model: { string: 'a' } } });
  });

  it('the ApiServer stores a v1beta2 claim as v1 and rejects an invalid one with v1 paths', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const api = new ApiServer(new MemoryStore({ clock }), { clock });
    const stored: any = await api.create(
      claim(
        { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', count: 2 } }] },
        'resource.k8s.io/v1beta2',
      ) as any,
    );
    expect(stored.apiVersion).toBe('resource.k8s.io/v1');
    expect(stored.spec.devices.requests[0].exactly.allocationMode).toBe('ExactCount');
    await expect(
      api.create({
        ...claim({ requests: [{ name: 'gpu', deviceClassName: 'x', count: -1 }] }, 'resource.k8s.io/v1beta1'),
        metadata: { name: 'd', namespace: 'default' },
      } as any),
    ).rejects.toThrow('spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero');
  });
});

describe('validation (pkg/apis/resource/validation)', () => {
  it('accepts a valid claim, class and slice', () => {
    expect(
      errs(
        claim({
          requests: [
            {
              name: 'gpu',
              exactly: {
                deviceClassName: 'gpu.example.com',
                selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }],
              },
            },
          ],
          constraints: [{ requests: ['gpu'], matchAttribute: 'gpu.example.com/numa' }],
        }),
      ),
    ).toEqual([]);
    expect(
      errs({
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'gpu.example.com' },
        spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
      }),
    ).toEqual([]);
    expect(
      errs(
        slice({
          nodeName: 'n1',
          devices: [
            {
              name: 'gpu-0',
              attributes: { model: { string: 'H100' }, driverVersion: { version: '1.2.3' } },
              capacity: { memory: { value: '80Gi' } },
            },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      { requests: [{ name: 'gpu' }] },
      'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required',
    ],
    [
      { requests: [{ name: 'gpu', exactly: { deviceClassName: 'c', allocationMode: 'All', count: 2 } }] },
      "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'",
    ],
    [
      { requests: [{ name: 'gpu', exactly: { deviceClassName: 'c', allocationMode: 'Some' } }] },
      'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"',
    ],
    [
      { requests: [{ name: 'gpu', exactly: { deviceClassName: '' } }] },
      'spec.devices.requests[0].exactly.deviceClassName: Required value',
    ],
    [
      {
        requests: [
          { name: 'a', exactly: { deviceClassName: 'c' } },
          { name: 'a', exactly: { deviceClassName: 'c' } },
        ],
      },
      'spec.devices.requests[1]: Duplicate value: "a"',
    ],
    [
      {
        requests: [{ name: 'a', exactly: { deviceClassName: 'c' } }],
        constraints: [{ requests: ['b'], matchAttribute: 'x.com/y' }],
      },
      'spec.devices.constraints[0].requests[0]: Invalid value: "b": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\'',
    ],
    [
      {
        requests: [{ name: 'a', exactly: { deviceClassName: 'c' } }],
        constraints: [{ matchAttribute: 'numa' }],
      },
      'spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash',
    ],
    [
      {
        requests: [
          {
            name: 'a',
            exactly: { deviceClassName: 'c', selectors: [{ cel: { expression: 'device.driver' } }] },
          },
        ],
      },
      'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool',
    ],
  ])('claim %#', (devices, want) => {
    expect(errs(claim(devices))).toContain(want);
  });

  it.each([
    [
      {},
      'spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
    ],
    [
      { nodeName: 'n1', allNodes: true },
      'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
    ],
    [
      { allNodes: true, devices: [{ name: 'g', attributes: { v: { version: '1.02' } } }] },
      'spec.devices[0].attributes[v].version: Invalid value: "1.02": must be a string compatible with semver.org spec 2.0.0',
    ],
    [
      { allNodes: true, devices: [{ name: 'g', attributes: { v: {} } }] },
      'spec.devices[0].attributes[v]: Required value: exactly one value must be specified',
    ],
    [{ allNodes: true, devices: [{ name: 'g' }, { name: 'g' }] }, 'spec.devices[1]: Duplicate value: "g"'],
  ])('slice %#', (spec, want) => {
    expect(errs(slice(spec)).join('\n')).toContain(want);
  });

  it('reservedFor needs an allocation', () => {
    const c: any = claim({ requests: [{ name: 'a', exactly: { deviceClassName: 'c' } }] });
    c.status = { reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }] };
    expect(errs(c)).toContain(
      'status.reservedFor: Forbidden: may not be specified when `allocated` is not set',
    );
  });
});

describe('DRA CEL environment', () => {
  const dev = deviceVariable('gpu.example.com', {
    name: 'g0',
    attributes: {
      model: { string: 'H100' },
      numa: { int: 1 },
      'other.com/x': { bool: true },
      driverVersion: { version: '1.10.0' },
    },
    capacity: { memory: { value: '80Gi' } },
  });
  it.each([
    ['device.driver == "gpu.example.com"', true],
    ['device.attributes["gpu.example.com"].model == "H100"', true],
    ['device.attributes["gpu.example.com"].numa == 1', true],
    ['device.attributes["other.com"].x', true],
    ['device.attributes["missing.com"].size() == 0', true],
    ['"missing.com" in device.attributes', false],
    ['device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0', true],
    ['device.capacity["gpu.example.com"].memory.isLessThan(quantity("100Gi"))', true],
    ['device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.9.0"))', true],
    ['device.attributes["gpu.example.com"].driverVersion.major() == 1', true],
    ['cel.bind(g, device.attributes["gpu.example.com"], g.model == "H100" && g.numa == 1)', true],
  ])('%s', (expr, want) => {
    const c = compileSelector(expr);
    expect(c.error).toBeUndefined();
    expect(deviceMatches(c, dev)).toBe(want);
  });

  it('a missing attribute in a present domain is a runtime error; a syntax error a compile error', () => {
    expect(() =>
      deviceMatches(compileSelector('device.attributes["gpu.example.com"].nope == 1'), dev),
    ).toThrow(/no such key/i);
    expect(compileSelector('device.driver ==').error).toMatch(/^compilation failed/);
  });
});

describe('the four kinds round-trip through the ApiServer', () => {
  it('create, get, list, update status, delete (v1 and v1beta1 input)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const api = new ApiServer(new MemoryStore({ clock }), { clock });
    const objs: any[] = [
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'gpu.example.com' },
        spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
      },
      {
        ...slice({
          nodeName: 'n1',
          devices: [{ name: 'gpu-0', basic: { attributes: { model: { string: 'H100' } } } }],
        }),
        apiVersion: 'resource.k8s.io/v1beta1',
      },
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        metadata: { name: 't', namespace: 'default' },
        spec: {
          spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
        },
      },
      claim({ requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] }),
    ];
    for (const o of objs) {
      const created: any = await api.create(o);
      expect(created.apiVersion).toBe('resource.k8s.io/v1');
      const resource = {
        DeviceClass: 'deviceclasses',
        ResourceSlice: 'resourceslices',
        ResourceClaimTemplate: 'resourceclaimtemplates',
        ResourceClaim: 'resourceclaims',
      }[o.kind as string]!;
      const got: any = await api.get(resource, o.metadata.namespace, o.metadata.name);
      expect(got.metadata.uid).toBe(created.metadata.uid);
      expect((await api.list(resource)).items).toHaveLength(1);
    }
    expect(((await api.get('resourceslices', undefined, 's')) as any).spec.devices[0]).toEqual({
      name: 'gpu-0',
      attributes: { model: { string: 'H100' } },
    });
    const c: any = await api.get('resourceclaims', 'default', 'c');
    c.status = {
      allocation: {
        devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }] },
      },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u1' }],
    };
    const updated: any = await api.updateStatus(c);
    expect(updated.status.reservedFor).toEqual([{ resource: 'pods', name: 'p', uid: 'u1' }]);
    await api.delete('resourceclaims', 'default', 'c');
    expect((await api.list('resourceclaims')).items).toHaveLength(0);
  });
});

type Stored = Parameters<typeof resourceObjectFromV1>[0];

describe('resource.k8s.io v1 → beta conversion (kubesim serve reads at v1beta1/v1beta2)', () => {
  const beta1Claim = {
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceClaim',
    metadata: { name: 'c', namespace: 'default' },
    spec: {
      devices: {
        requests: [
          {
            name: 'a',
            deviceClassName: 'gpu',
            selectors: [{ cel: { expression: 'true' } }],
            count: 2,
            allocationMode: 'ExactCount',
            adminAccess: false,
          },
          { name: 'b', firstAvailable: [{ name: 'x', deviceClassName: 'gpu', allocationMode: 'All' }] },
          { name: 'c', deviceClassName: 'gpu', allocationMode: 'All' },
        ],
        constraints: [{ requests: ['a'], matchAttribute: 'gpu.example.com/numa' }],
      },
    },
  };
  const beta1Slice = {
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceSlice',
    metadata: { name: 's' },
    spec: {
      driver: 'gpu.example.com',
      nodeName: 'n',
      pool: { name: 'n', generation: 1, resourceSliceCount: 1 },
      devices: [
        {
          name: 'gpu-0',
          basic: { attributes: { numa: { int: 0 } }, capacity: { memory: { value: '80Gi' } } },
        },
        { name: 'gpu-1' },
      ],
    },
  };

  it('gives back the v1beta1 objects that were converted in', () => {
    for (const original of [beta1Claim, beta1Slice]) {
      const stored = structuredClone(original) as Stored;
      applyDefaults(stored);
      expect(stored.apiVersion).toBe('resource.k8s.io/v1');
      expect(resourceObjectFromV1(stored, 'v1beta1')).toEqual(original);
    }
    const tmpl = {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't', namespace: 'default' },
      spec: { spec: beta1Claim.spec },
    };
    const stored = structuredClone(tmpl) as Stored;
    applyDefaults(stored);
    expect(stored.spec.spec.devices.requests[0].exactly.count).toBe(2);
    expect(resourceObjectFromV1(stored, 'v1beta1')).toEqual(tmpl);
  });

  it('leaves the stored object alone and relabels v1beta2, which has v1’s shape', () => {
    const stored = structuredClone(beta1Claim) as Stored;
    applyDefaults(stored);
    const before = structuredClone(stored);
    const beta2 = resourceObjectFromV1(stored, 'v1beta2');
    expect(stored).toEqual(before);
    expect(beta2).toEqual({ ...before, apiVersion: 'resource.k8s.io/v1beta2' });
  });
});

// Differential test of DynamicResources' Filter memo (plugin.ts Memo, ClaimsView.stampsOf): a
// long-lived SchedulerCore places GPU pods one by one (its plugin reuses a node's allocation for
// claims of the same spec while none of the node's devices moved); before each placement a fresh
// SchedulerCore — no memo, the claims allocated so far listed — must give every node the same
// DynamicResources verdict, and the devices Reserve took on the chosen node must be those the fresh
// allocator gives the claim there. Two claim specs interleave (1 and 2 GPUs), so memo entries of one
// spec must notice allocations made for the other.
import { describe, expect, it } from 'vitest';
import { resourceSliceFor } from '../../../src/api/resource-slices.js';
import type { ResourceClaim, ResourceObjects } from '../../../src/api/resource-types.js';
import type { Node, Pod } from '../../../src/api/types.js';
import { ensureResourceClaims } from '../../../src/capacity/resource-claims.js';
import { claimsAfterReserve } from '../../../src/scheduler/plugins/dynamic-resources/plugin.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';

const DRIVER = 'gpu.example.com';

const node = (name: string, cpu: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  status: {
    capacity: { cpu, memory: '256Gi', pods: '110' },
    allocatable: { cpu, memory: '256Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

// 8 GPU nodes of 4 GPUs (two with few cpus, so that cpu, not devices, ends them), one without devices
const nodes = [
  ...Array.from({ length: 8 }, (_, i) => node(`gpu-${i}`, i < 2 ? '3' : '32')),
  node('cpu-0', '32'),
];
const template = (name: string, count: number) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaimTemplate',
  metadata: { name, namespace: 'default' },
  spec: {
    spec: {
      devices: {
        requests: [
          { name: 'gpu', exactly: { deviceClassName: DRIVER, allocationMode: 'ExactCount', count } },
        ],
      },
    },
  },
});
const base: ResourceObjects = {
  deviceClasses: [
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: DRIVER },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] },
    },
  ],
  resourceClaimTemplates: [
    template('one-gpu', 1),
    template('two-gpus', 2),
  ] as ResourceObjects['resourceClaimTemplates'],
  resourceSlices: nodes
    .filter((n) => n.metadata.name!.startsWith('gpu-'))
    .map((n) =>
      resourceSliceFor(n, { driver: DRIVER, count: 4, namePrefix: 'gpu', attributes: {}, capacity: {} }),
    ),
};

const pod = (i: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${i}`, namespace: 'default', uid: `uid-p${i}` },
  spec: {
    containers: [
      { name: 'c', image: 'app:1', resources: { requests: { cpu: '1' }, claims: [{ name: 'gpu' }] } },
    ],
    resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: i % 3 === 1 ? 'two-gpus' : 'one-gpu' }],
  } as Pod['spec'],
});

const draVerdicts = (core: SchedulerCore, p: Pod) =>
  Object.fromEntries(
    core.explain(p).nodes.map((n) => {
      const v = n.filters.find((f) => f.plugin === 'DynamicResources');
      return [n.name, v ? [v.result, ...(v.reasons ?? [])].join(': ') : 'not run'];
    }),
  );

describe('DynamicResources Filter memo', () => {
  it('gives every node the verdict and devices a fresh allocator gives, pod after pod until full', () => {
    const long = new SchedulerCore({
      kernel: 'js',
      nodes,
      objects: { resources: { ...base, resourceClaims: [] } },
    });
    const allocated: ResourceClaim[] = [];
    const bound: Pod[] = [];
    let placed = 0;
    let i = 0;
    for (; i < 60; i++) {
      const p = pod(i);
      ensureResourceClaims(long, p);
      const own = long.objects.resources!.resourceClaims!.at(-1)!;
      const fresh = new SchedulerCore({
        kernel: 'js',
        nodes,
        pods: bound,
        objects: { resources: { ...base, resourceClaims: [...allocated, own] } },
      });
      const freshVerdicts = draVerdicts(fresh, p);
      expect(draVerdicts(long, p), `pod ${i}`).toEqual(freshVerdicts);
      const out = long.schedule(p);
      if (out.kind !== 'scheduled') {
        expect(
          Object.values(freshVerdicts).every((v) => v !== 'pass'),
          `pod ${i}`,
        ).toBe(true);
        break;
      }
      expect(long.reserveAndAssume(out)).toBeNull();
      const [claim] = claimsAfterReserve(out.state);
      const got = claim!.status!.allocation!.devices!.results!.map((r) => `${r.pool}/${r.device}`);
      const alone = fresh.explain(p).claims![0]!.nodes!.find((n) => n.node === out.nodeName)!;
      expect(got, `pod ${i} on ${out.nodeName}`).toEqual(alone.devices);
      allocated.push({
        ...claim!,
        status: {
          ...claim!.status,
          reservedFor: [{ resource: 'pods', name: p.metadata.name!, uid: p.metadata.uid! }],
        },
      });
      bound.push({ ...p, spec: { ...p.spec, nodeName: out.nodeName } });
      placed++;
    }
    // every 3 pods ask 1 + 2 + 1 GPUs: 24 pods take all 32 (no node left with a stranded GPU), and
    // pod 24 fits nowhere
    expect(placed).toBe(24);
    expect(i).toBe(24);
  });
});

// api/pod-requests.ts against upstream's tables (k8s.io/component-helpers/resource/helpers_test.go):
// TestPodResourceRequests (the rows without in-place resize status) and TestPodLevelResourceRequests,
// then the same pods through the scheduler engine's podRequests / nonZeroCpuMem, which must agree.
import { describe, expect, it } from 'vitest';
import { podRequests } from '../../src/api/pod-requests.js';
import type { Container, Pod, ResourceList } from '../../src/api/types.js';
import { bytes, cpuMillis } from '../../src/api/quantity.js';
import {
  nonZeroCpuMem,
  podRequests as enginePodRequests,
  podResourceSums,
} from '../../src/scheduler/engine/resources.js';

type C = { req: ResourceList; sidecar?: boolean };
interface Row {
  name: string;
  containers?: C[];
  inits?: C[];
  podLevel?: ResourceList;
  overhead?: ResourceList;
  opts?: { excludeOverhead?: boolean; skipPodLevelResources?: boolean };
  want: ResourceList;
}

const cpu = (v: string): ResourceList => ({ cpu: v });
const cm = (memory: string, c: string): ResourceList => ({ memory, cpu: c });

// TestPodResourceRequests; left out: the nine "resized …" rows and "aggregate request resolves max
// of sums…", which read container statuses for in-place resize (UseStatusResources) — kubesim
// has no resize, so status resources never differ from the spec.
const resourceRows: Row[] = [
  {
    name: 'nil options, larger init container',
    inits: [{ req: cpu('4') }],
    containers: [{ req: cpu('1') }],
    want: cpu('4'),
  },
  {
    name: 'nil options, larger containers',
    inits: [{ req: cpu('2') }],
    containers: [{ req: cpu('2') }, { req: cpu('3') }],
    want: cpu('5'),
  },
  {
    name: 'pod overhead excluded',
    opts: { excludeOverhead: true },
    overhead: cpu('1'),
    inits: [{ req: cpu('2') }],
    containers: [{ req: cpu('2') }, { req: cpu('3') }],
    want: cpu('5'),
  },
  {
    name: 'pod overhead included',
    overhead: { cpu: '1', memory: '1Gi' },
    inits: [{ req: cpu('2') }],
    containers: [{ req: cpu('2') }, { req: cpu('3') }],
    want: { cpu: '6', memory: '1Gi' },
  },
  {
    name: 'restartable init container',
    inits: [{ req: cpu('1'), sidecar: true }],
    containers: [{ req: cpu('1') }],
    want: cpu('2'),
  },
  {
    name: 'multiple restartable init containers',
    inits: [
      { req: cpu('5') },
      { req: cpu('1'), sidecar: true },
      { req: cpu('2'), sidecar: true },
      { req: cpu('3'), sidecar: true },
    ],
    containers: [{ req: cpu('1') }],
    want: cpu('7'),
  },
  {
    name: 'multiple restartable and regular init containers',
    inits: [
      { req: cpu('5') },
      { req: cpu('1'), sidecar: true },
      { req: cpu('2'), sidecar: true },
      { req: cpu('5') },
      { req: cpu('3'), sidecar: true },
    ],
    containers: [{ req: cpu('1') }],
    want: cpu('8'),
  },
  {
    name: 'restartable-init, init and regular',
    inits: [{ req: cpu('10'), sidecar: true }, { req: cpu('200') }],
    containers: [{ req: cpu('100') }],
    want: cpu('210'),
  },
];

// TestPodLevelResourceRequests (all rows)
const podLevelRows: Row[] = [
  { name: 'nil', want: {} },
  {
    name: 'pod level memory resource with SkipPodLevelResources true',
    podLevel: { memory: '2Mi' },
    opts: { skipPodLevelResources: true },
    want: {},
  },
  {
    name: 'pod level memory resource with SkipPodLevelResources false',
    podLevel: { memory: '2Mi' },
    want: { memory: '2Mi' },
  },
  {
    name: 'pod level memory and container level cpu resources with SkipPodLevelResources false',
    podLevel: { memory: '2Mi' },
    containers: [{ req: cpu('2m') }],
    want: { memory: '2Mi', cpu: '2m' },
  },
  {
    name: 'pod level unsupported resources set at both pod-level and container-level with SkipPodLevelResources false',
    podLevel: { storage: '2Mi' },
    containers: [{ req: { storage: '3Mi' } }],
    want: { storage: '3Mi' },
  },
  {
    name: 'pod level unsupported resources set at pod-level with SkipPodLevelResources false',
    podLevel: { storage: '2Mi' },
    containers: [{ req: { memory: '3Mi' } }],
    want: { memory: '3Mi' },
  },
  {
    name: 'only container level resources set with SkipPodLevelResources false',
    containers: [{ req: cm('3Mi', '2m') }],
    want: cm('3Mi', '2m'),
  },
  {
    name: 'both container-level and pod-level resources set with SkipPodLevelResources false',
    podLevel: cm('6Mi', '8m'),
    containers: [{ req: cm('3Mi', '2m') }],
    want: cm('6Mi', '8m'),
  },
  {
    name: 'container-level resources and init container set with SkipPodLevelResources false',
    containers: [{ req: cm('3Mi', '2m') }],
    inits: [{ req: cm('5Mi', '4m') }],
    want: cm('5Mi', '4m'),
  },
  {
    name: 'container-level resources and init container set with SkipPodLevelResources true',
    containers: [{ req: cm('3Mi', '2m') }],
    inits: [{ req: cm('5Mi', '4m') }],
    opts: { skipPodLevelResources: true },
    want: cm('5Mi', '4m'),
  },
  {
    name: 'container-level resources and sidecar container set with SkipPodLevelResources false',
    containers: [{ req: cm('3Mi', '2m') }],
    inits: [{ req: cm('5Mi', '4m'), sidecar: true }],
    want: cm('8Mi', '6m'),
  },
  {
    name: 'container-level resources, init and sidecar container set with SkipPodLevelResources false',
    containers: [{ req: cm('3Mi', '2m') }],
    inits: [{ req: cm('5Mi', '4m'), sidecar: true }, { req: cm('6Mi', '8m') }],
    want: cm('11Mi', '12m'),
  },
  {
    name: 'pod-level resources, container-level resources, init and sidecar container set with SkipPodLevelResources false',
    podLevel: cm('15Mi', '18m'),
    containers: [{ req: cm('3Mi', '2m') }],
    inits: [{ req: cm('5Mi', '4m'), sidecar: true }, { req: cm('6Mi', '8m') }],
    want: cm('15Mi', '18m'),
  },
];

function podOf(r: Row): Pod {
  const c = (x: C, i: number): Container => ({
    name: `c${i}`,
    resources: { requests: x.req },
    ...(x.sidecar ? { restartPolicy: 'Always' as const } : {}),
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: (r.containers ?? []).map(c),
      initContainers: (r.inits ?? []).map(c),
      ...(r.podLevel ? { resources: { requests: r.podLevel } } : {}),
      ...(r.overhead ? { overhead: r.overhead } : {}),
    },
  };
}

const units = (l: ResourceList) =>
  Object.fromEntries(Object.entries(l).map(([k, v]) => [k, k === 'cpu' ? cpuMillis(v) : bytes(v)]));

describe('PodRequests (upstream TestPodResourceRequests, TestPodLevelResourceRequests)', () => {
  for (const r of [...resourceRows, ...podLevelRows]) {
    it(r.name, () => {
      const pod = podOf(r);
      expect(Object.fromEntries(podRequests(pod, r.opts))).toEqual(units(r.want));
      // the scheduler engine counts the same (it never skips pod-level resources or overhead)
      if (!r.opts) {
        expect(Object.fromEntries(enginePodRequests(pod))).toEqual(units(r.want));
        const sums = podResourceSums(pod);
        expect(Object.fromEntries(sums.names.map((n, i) => [n, sums.amounts[i]]))).toEqual(units(r.want));
      }
    });
  }
});

describe('non-zero requests with pod-level resources', () => {
  it('pod-level cpu/memory replace the 100m / 200Mi defaults of containers that request nothing', () => {
    const bare = podOf({ name: '', containers: [{ req: {} }], want: {} });
    expect(nonZeroCpuMem(bare)).toEqual({ cpu: 100, memory: 200 * 1024 * 1024 });
    const podLevel = podOf({ name: '', containers: [{ req: {} }], podLevel: cm('1Gi', '2'), want: {} });
    expect(nonZeroCpuMem(podLevel)).toEqual({ cpu: 2000, memory: 1024 ** 3 });
    expect(Object.fromEntries(enginePodRequests(podLevel, true))).toEqual({ cpu: 2000, memory: 1024 ** 3 });
  });
});

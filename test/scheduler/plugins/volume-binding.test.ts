// VolumeBinding through PluginRunner, upstream's table transcribed as data (Kubernetes
// pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go TestVolumeBinding): PreFilter
// status, Filter per node, and the VolumeCapacityPriority scores when a shape is configured (the
// cases upstream runs with the feature on). The state-after-PreFilter comparisons are internal and
// not transcribed. Plus the default profile's FitError text with these reasons.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
} from '../../../src/api/storage-types.js';
import { PluginRunner, SchedulerCore } from '../../../src/scheduler/index.js';
import { nodeOf } from '../../helpers/builders.js';

const sc = (name: string, mode?: 'Immediate' | 'WaitForFirstConsumer', provisioner = ''): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  volumeBindingMode: mode,
});
const immediateSC = sc('immediate-sc', 'Immediate');
const waitSC = sc('wait-sc', 'WaitForFirstConsumer');
const waitHDDSC = sc('wait-hdd-sc', 'WaitForFirstConsumer');

function pod(name: string, ...claims: string[]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: name },
    spec: {
      containers: [],
      volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })),
    },
  };
}

function pvc(
  name: string,
  cls: string,
  o: { boundPV?: string; phase?: 'Lost'; request?: string } = {},
): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      ...(o.boundPV ? { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } } : {}),
    },
    spec: {
      storageClassName: cls,
      ...(o.boundPV ? { volumeName: o.boundPV } : {}),
      ...(o.request ? { resources: { requests: { storage: o.request } } } : {}),
    },
    ...(o.phase ? { status: { phase: o.phase } } : {}),
  };
}

function pv(
  name: string,
  cls: string,
  o: { capacity?: string; affinity?: Record<string, string[]> } = {},
): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      storageClassName: cls,
      ...(o.capacity ? { capacity: { storage: o.capacity } } : {}),
      ...(o.affinity
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  {
                    matchExpressions: Object.entries(o.affinity).map(([key, values]) => ({
                      key,
                      operator: 'In' as const,
                      values,
                    })),
                  },
                ],
              },
            },
          }
        : {}),
    },
    status: { phase: 'Available' },
  };
}

/** upstream test_utils makeNode: the hostname label set */
const mkNode = (name: string, labels: Record<string, string> = {}): Node =>
  nodeOf(name, { labels: { 'kubernetes.io/hostname': name, ...labels } });
const host = (n: string) => ({ 'kubernetes.io/hostname': [n] });
const zoneNode = (name: string, region: string, zone: string): Node =>
  mkNode(name, { 'topology.kubernetes.io/region': region, 'topology.kubernetes.io/zone': zone });
const zonal = (region: string, zone: string) => ({
  'topology.kubernetes.io/region': [region],
  'topology.kubernetes.io/zone': [zone],
});

const BIND = "node(s) didn't find available persistent volumes to bind";
const NODE = "node(s) didn't match PersistentVolume's node affinity";
const DEFAULT_SHAPE = [
  { utilization: 0, score: 0 },
  { utilization: 100, score: 10 },
];

interface Row {
  name: string;
  pod: Pod;
  nodes: Node[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  /** upstream's fts.EnableVolumeCapacityPriority / args.Shape: kubesim scores when a shape is given */
  shape?: { utilization: number; score: number }[];
  preFilter?: { code: string; reasons: string[] };
  /** per node: null = fits, else the reasons (all UnschedulableAndUnresolvable) */
  filter?: (string[] | null)[];
  scores?: number[];
}

const sixZoneNodes = [
  zoneNode('zone-a-node-a', 'region-a', 'zone-a'),
  zoneNode('zone-a-node-b', 'region-a', 'zone-a'),
  zoneNode('zone-b-node-a', 'region-b', 'zone-b'),
  zoneNode('zone-b-node-b', 'region-b', 'zone-b'),
  zoneNode('zone-c-node-a', 'region-c', 'zone-c'),
  zoneNode('zone-c-node-b', 'region-c', 'zone-c'),
];
const zonalPVs = [
  pv('pv-a-0', 'wait-sc', { capacity: '200Gi', affinity: zonal('region-a', 'zone-a') }),
  pv('pv-a-1', 'wait-sc', { capacity: '200Gi', affinity: zonal('region-a', 'zone-a') }),
  pv('pv-b-0', 'wait-sc', { capacity: '100Gi', affinity: zonal('region-b', 'zone-b') }),
  pv('pv-b-1', 'wait-sc', { capacity: '100Gi', affinity: zonal('region-b', 'zone-b') }),
];

const ROWS: Row[] = [
  {
    name: 'pod has not pvcs',
    pod: pod('pod-a'),
    nodes: [mkNode('node-a')],
    preFilter: { code: 'Skip', reasons: [] },
  },
  {
    name: 'all bound',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a' })],
    pvs: [pv('pv-a', 'wait-sc')],
    filter: [null],
  },
  {
    name: 'PVC does not exist',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [],
    preFilter: { code: 'UnschedulableAndUnresolvable', reasons: ['persistentvolumeclaim "pvc-a" not found'] },
  },
  {
    name: 'Part of PVCs do not exist',
    pod: pod('pod-a', 'pvc-a', 'pvc-b'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a' })],
    preFilter: { code: 'UnschedulableAndUnresolvable', reasons: ['persistentvolumeclaim "pvc-b" not found'] },
  },
  {
    name: 'immediate claims not bound',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'immediate-sc')],
    preFilter: {
      code: 'UnschedulableAndUnresolvable',
      reasons: ['pod has unbound immediate PersistentVolumeClaims'],
    },
  },
  {
    name: 'unbound claims no matches',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'wait-sc')],
    filter: [[BIND]],
  },
  {
    name: 'bound and unbound unsatisfied',
    pod: pod('pod-a', 'pvc-a', 'pvc-b'),
    nodes: [mkNode('node-a', { foo: 'barbar' })],
    pvcs: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a' }), pvc('pvc-b', 'wait-sc')],
    pvs: [pv('pv-a', 'wait-sc', { affinity: { foo: ['bar'] } })],
    filter: [[NODE, BIND]],
  },
  {
    name: 'pvc not found',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    preFilter: { code: 'UnschedulableAndUnresolvable', reasons: ['persistentvolumeclaim "pvc-a" not found'] },
  },
  {
    name: 'pv not found',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a' })],
    filter: [['node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)']],
  },
  {
    name: 'pv not found claim lost',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a')],
    pvcs: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a', phase: 'Lost' })],
    preFilter: {
      code: 'UnschedulableAndUnresolvable',
      reasons: ['persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'],
    },
  },
  {
    name: 'local volumes with close capacity are preferred',
    pod: pod('pod-a', 'pvc-a'),
    nodes: [mkNode('node-a'), mkNode('node-b'), mkNode('node-c')],
    pvcs: [pvc('pvc-a', 'wait-sc', { request: '50Gi' })],
    pvs: [
      pv('pv-a-0', 'wait-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-a-1', 'wait-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-b-0', 'wait-sc', { capacity: '100Gi', affinity: host('node-b') }),
      pv('pv-b-1', 'wait-sc', { capacity: '100Gi', affinity: host('node-b') }),
    ],
    shape: DEFAULT_SHAPE,
    filter: [null, null, [BIND]],
    scores: [25, 50, 0],
  },
  {
    name: 'local volumes with close capacity are preferred (multiple pvcs)',
    pod: pod('pod-a', 'pvc-0', 'pvc-1'),
    nodes: [mkNode('node-a'), mkNode('node-b'), mkNode('node-c')],
    pvcs: [pvc('pvc-0', 'wait-sc', { request: '50Gi' }), pvc('pvc-1', 'wait-hdd-sc', { request: '100Gi' })],
    pvs: [
      pv('pv-a-0', 'wait-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-a-1', 'wait-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-a-2', 'wait-hdd-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-a-3', 'wait-hdd-sc', { capacity: '200Gi', affinity: host('node-a') }),
      pv('pv-b-0', 'wait-sc', { capacity: '100Gi', affinity: host('node-b') }),
      pv('pv-b-1', 'wait-sc', { capacity: '100Gi', affinity: host('node-b') }),
      pv('pv-b-2', 'wait-hdd-sc', { capacity: '100Gi', affinity: host('node-b') }),
      pv('pv-b-3', 'wait-hdd-sc', { capacity: '100Gi', affinity: host('node-b') }),
    ],
    shape: DEFAULT_SHAPE,
    filter: [null, null, [BIND]],
    scores: [38, 75, 0],
  },
  {
    name: 'zonal volumes with close capacity are preferred',
    pod: pod('pod-a', 'pvc-a'),
    nodes: sixZoneNodes,
    pvcs: [pvc('pvc-a', 'wait-sc', { request: '50Gi' })],
    pvs: zonalPVs,
    shape: DEFAULT_SHAPE,
    filter: [null, null, null, null, [BIND], [BIND]],
    scores: [25, 25, 50, 50, 0, 0],
  },
  {
    name: 'zonal volumes with close capacity are preferred (custom shape)',
    pod: pod('pod-a', 'pvc-a'),
    nodes: sixZoneNodes,
    pvcs: [pvc('pvc-a', 'wait-sc', { request: '50Gi' })],
    pvs: zonalPVs,
    shape: [
      { utilization: 0, score: 0 },
      { utilization: 50, score: 3 },
      { utilization: 100, score: 5 },
    ],
    filter: [null, null, null, null, [BIND], [BIND]],
    scores: [15, 15, 30, 30, 0, 0],
  },
];

describe('VolumeBinding (TestVolumeBinding)', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const runner = new PluginRunner({
        plugin: 'VolumeBinding',
        args: row.shape ? { shape: row.shape } : undefined,
        nodes: row.nodes,
        objects: {
          storage: {
            storageClasses: [immediateSC, waitSC, waitHDDSC],
            persistentVolumeClaims: row.pvcs ?? [],
            persistentVolumes: row.pvs ?? [],
          },
        },
      });
      const r = runner.run(row.pod);
      expect(r.preFilter).toEqual(row.preFilter ?? { code: 'Success', reasons: [] });
      if (row.filter) {
        const want: Record<string, unknown> = {};
        row.nodes.forEach((n, i) => {
          const f = row.filter![i];
          want[n.metadata.name!] = f
            ? { code: 'UnschedulableAndUnresolvable', reasons: f }
            : { code: 'Success', reasons: [] };
        });
        expect(r.filter).toEqual(want);
      } else expect(r.filter).toBeUndefined();
      if (row.scores) {
        // upstream scores every node (0 on the rejected ones); PluginRunner does too
        expect(r.preScore).toEqual({ code: 'Success', reasons: [] });
        expect(Object.values(r.score!)).toEqual(row.scores);
      } else if (r.preScore) expect(r.preScore.code).toBe('Skip');
    });
  }
});

describe('VolumeBinding in the default profile', () => {
  it('is enabled with the other volume plugins, and its reasons make the FitError', () => {
    const nodes = [
      nodeOf('n1', { capacity: { cpu: '4', memory: '8Gi', pods: 110 }, labels: { foo: 'barbar' } }),
      nodeOf('n2', { capacity: { cpu: '4', memory: '8Gi', pods: 110 }, labels: { foo: 'barbar' } }),
    ];
    const core = new SchedulerCore({
      nodes,
      kernel: 'js',
      objects: {
        storage: {
          storageClasses: [immediateSC, waitSC],
          persistentVolumeClaims: [pvc('pvc-a', 'wait-sc', { boundPV: 'pv-a' }), pvc('pvc-b', 'wait-sc')],
          persistentVolumes: [pv('pv-a', 'wait-sc', { affinity: { foo: ['bar'] } })],
        },
      },
    });
    const fwk = [...core.frameworks.values()][0]!;
    expect(fwk.plugins.filter.map((p) => p.name)).toEqual(
      expect.arrayContaining(['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone']),
    );
    expect(fwk.plugins.reserve.map((p) => p.name)).toContain('VolumeBinding');
    expect(fwk.plugins.preBind?.map((p) => p.name)).toEqual(['VolumeBinding', 'DynamicResources']);
    // VolumeCapacityPriority is off by default: VolumeBinding scores with weight 1 but PreScore skips
    expect(fwk.plugins.score.find((s) => s.plugin.name === 'VolumeBinding')?.weight).toBe(1);
    const out = core.schedule(pod('p', 'pvc-a', 'pvc-b'));
    expect(out.kind).toBe('unschedulable');
    if (out.kind !== 'unschedulable') return;
    expect(out.fitError.message).toBe(
      "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  });
});

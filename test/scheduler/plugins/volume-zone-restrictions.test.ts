// VolumeZone and VolumeRestrictions through PluginRunner, upstream's tables transcribed as data
// (Kubernetes pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go TestSingleZone,
// TestMultiZone, TestWithBinding; volumerestrictions/volume_restrictions_test.go
// TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
// TestAccessModeConflicts). Upstream's VolumeZone tests also call Filter after a failed PreFilter
// (Filter recomputes); PluginRunner, like the framework, does not, so those rows check PreFilter.
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../src/api/types.js';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
} from '../../../src/api/storage-types.js';
import { PluginRunner, type StatusResult } from '../../../src/scheduler/index.js';
import { nodeOf } from '../../helpers/builders.js';

const OK: StatusResult = { code: 'Success', reasons: [] };
const SKIP: StatusResult = { code: 'Skip', reasons: [] };
const unres = (r: string): StatusResult => ({ code: 'UnschedulableAndUnresolvable', reasons: [r] });
const unsched = (r: string): StatusResult => ({ code: 'Unschedulable', reasons: [r] });

const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';

function podWith(name: string, volumes: Record<string, unknown>[], node?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: name },
    spec: { containers: [], volumes, ...(node ? { nodeName: node } : {}) },
  };
}
const claimPod = (name: string, claims: string[], node?: string) =>
  podWith(
    name,
    claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })),
    node,
  );

const pvOf = (name: string, labels: Record<string, string>): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels },
  spec: {},
});
const pvcOf = (name: string, spec: PersistentVolumeClaim['spec']): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default' },
  spec,
});
const host = (labels: Record<string, string>): Node => nodeOf('host1', { labels });

const ZONE_CONFLICT = unres('node(s) had no available volume zone');

function runZone(
  pvs: PersistentVolume[],
  pvcs: PersistentVolumeClaim[],
  classes: StorageClass[],
  pod: Pod,
  node: Node,
) {
  return new PluginRunner({
    plugin: 'VolumeZone',
    nodes: [node],
    objects: { storage: { persistentVolumes: pvs, persistentVolumeClaims: pvcs, storageClasses: classes } },
  }).run(pod);
}

type ZoneRow = [
  name: string,
  pod: Pod,
  node: Node,
  preFilter: StatusResult,
  filter: StatusResult | undefined,
];

function zoneTable(
  title: string,
  pvs: PersistentVolume[],
  pvcs: PersistentVolumeClaim[],
  classes: StorageClass[],
  rows: ZoneRow[],
) {
  describe(title, () => {
    for (const [name, pod, node, pre, filter] of rows)
      it(name, () => {
        const r = runZone(pvs, pvcs, classes, pod, node);
        expect(r.preFilter).toEqual(pre);
        if (filter) expect(r.filter).toEqual({ host1: filter });
      });
  });
}

const volPod = (pvc: string) => claimPod('pod_1', [pvc]);

zoneTable(
  'VolumeZone (TestSingleZone)',
  [
    pvOf('Vol_1', { [BETA_ZONE]: 'us-west1-a' }),
    pvOf('Vol_2', { [BETA_REGION]: 'us-west1', uselessLabel: 'none' }),
    pvOf('Vol_3', { [BETA_REGION]: 'us-west1' }),
    pvOf('Vol_Stable_1', { [ZONE]: 'us-west1-a' }),
    pvOf('Vol_Stable_2', { [REGION]: 'us-west1', uselessLabel: 'none' }),
    pvOf('Vol_Stable_3', { [ZONE]: 'us-west1-a', [REGION]: 'us-west1-a' }),
  ],
  [
    pvcOf('PVC_1', { volumeName: 'Vol_1' }),
    pvcOf('PVC_2', { volumeName: 'Vol_2' }),
    pvcOf('PVC_3', { volumeName: 'Vol_3' }),
    pvcOf('PVC_4', { volumeName: 'Vol_not_exist' }),
    pvcOf('PVC_Stable_1', { volumeName: 'Vol_Stable_1' }),
    pvcOf('PVC_Stable_2', { volumeName: 'Vol_Stable_2' }),
    pvcOf('PVC_Stable_3', { volumeName: 'Vol_Stable_3' }),
  ],
  [],
  [
    ['pod without volume', podWith('pod_1', []), host({ [BETA_ZONE]: 'us-west1-a' }), SKIP, undefined],
    ['node without labels', volPod('PVC_1'), nodeOf('host1'), OK, OK],
    [
      'beta zone label matched',
      volPod('PVC_1'),
      host({ [BETA_ZONE]: 'us-west1-a', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      'beta region label matched',
      volPod('PVC_2'),
      host({ [BETA_REGION]: 'us-west1', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      "beta region label doesn't match",
      volPod('PVC_2'),
      host({ [BETA_REGION]: 'no_us-west1', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      "beta zone label doesn't match",
      volPod('PVC_1'),
      host({ [BETA_ZONE]: 'no_us-west1-a', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      'zone label matched',
      volPod('PVC_Stable_1'),
      host({ [ZONE]: 'us-west1-a', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      'region label matched',
      volPod('PVC_Stable_2'),
      host({ [REGION]: 'us-west1', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      "region label doesn't match",
      volPod('PVC_Stable_2'),
      host({ [REGION]: 'no_us-west1', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      "zone label doesn't match",
      volPod('PVC_Stable_1'),
      host({ [ZONE]: 'no_us-west1-a', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      'pv with zone and region, node with only zone',
      volPod('PVC_Stable_3'),
      host({ [ZONE]: 'us-west1-a' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      'pv with zone,node with beta zone',
      volPod('PVC_Stable_1'),
      host({ [BETA_ZONE]: 'us-west1-a' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      'pv with beta label,node with ga label, matched',
      volPod('PVC_1'),
      host({ [ZONE]: 'us-west1-a' }),
      OK,
      OK,
    ],
    [
      "pv with beta label,node with ga label, don't match",
      volPod('PVC_1'),
      host({ [ZONE]: 'us-west1-b' }),
      OK,
      ZONE_CONFLICT,
    ],
  ],
);

zoneTable(
  'VolumeZone (TestMultiZone)',
  [
    pvOf('Vol_1', { [BETA_ZONE]: 'us-west1-a' }),
    pvOf('Vol_2', { [BETA_ZONE]: 'us-west1-b', uselessLabel: 'none' }),
    pvOf('Vol_3', { [BETA_ZONE]: 'us-west1-c__us-west1-a' }),
    pvOf('Vol_Stable_1', { [ZONE]: 'us-west1-a' }),
    pvOf('Vol_Stable_2', { [ZONE]: 'us-west1-c__us-west1-a' }),
  ],
  [
    pvcOf('PVC_1', { volumeName: 'Vol_1' }),
    pvcOf('PVC_2', { volumeName: 'Vol_2' }),
    pvcOf('PVC_3', { volumeName: 'Vol_3' }),
    pvcOf('PVC_4', { volumeName: 'Vol_not_exist' }),
    pvcOf('PVC_Stable_1', { volumeName: 'Vol_Stable_1' }),
    pvcOf('PVC_Stable_2', { volumeName: 'Vol_Stable_2' }),
  ],
  [],
  [
    ['node without labels', volPod('PVC_3'), nodeOf('host1'), OK, OK],
    [
      'beta zone label matched',
      volPod('PVC_3'),
      host({ [BETA_ZONE]: 'us-west1-a', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      "beta zone label doesn't match",
      volPod('PVC_1'),
      host({ [BETA_ZONE]: 'us-west1-b', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
    [
      'zone label matched',
      volPod('PVC_Stable_2'),
      host({ [ZONE]: 'us-west1-a', uselessLabel: 'none' }),
      OK,
      OK,
    ],
    [
      "zone label doesn't match",
      volPod('PVC_Stable_1'),
      host({ [ZONE]: 'us-west1-b', uselessLabel: 'none' }),
      OK,
      ZONE_CONFLICT,
    ],
  ],
);

{
  const cls = (name: string, mode?: 'WaitForFirstConsumer'): StorageClass => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: '',
    ...(mode ? { volumeBindingMode: mode } : {}),
  });
  const testNode = host({ [BETA_ZONE]: 'us-west1-a', uselessLabel: 'none' });
  zoneTable(
    'VolumeZone (TestWithBinding)',
    [pvOf('Vol_1', { [BETA_ZONE]: 'us-west1-a' })],
    [
      pvcOf('PVC_1', { volumeName: 'Vol_1' }),
      pvcOf('PVC_NoSC', { storageClassName: 'Class_0' }),
      pvcOf('PVC_EmptySC', {}),
      pvcOf('PVC_WaitSC', { storageClassName: 'Class_Wait' }),
      pvcOf('PVC_ImmediateSC', { storageClassName: 'Class_Immediate' }),
    ],
    [cls('Class_Immediate'), cls('Class_Wait', 'WaitForFirstConsumer')],
    [
      ['label zone failure domain matched', volPod('PVC_1'), testNode, OK, OK],
      [
        'unbound volume empty storage class',
        volPod('PVC_EmptySC'),
        testNode,
        unres('PersistentVolumeClaim had no pv name and storageClass name'),
        undefined,
      ],
      // upstream's fake lister words it `storageclasses.storage.k8s.io "Class_0" not found`; the
      // informer's lister (what kube-scheduler runs with) says `storageclass.storage.k8s.io`
      [
        'unbound volume no storage class',
        volPod('PVC_NoSC'),
        testNode,
        unres('storageclass.storage.k8s.io "Class_0" not found'),
        undefined,
      ],
      [
        'unbound volume immediate binding mode',
        volPod('PVC_ImmediateSC'),
        testNode,
        unres('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
        undefined,
      ],
      ['unbound volume wait binding mode', volPod('PVC_WaitSC'), testNode, SKIP, undefined],
    ],
  );
}

// ---------------------------------------------------------------- VolumeRestrictions

const DISK = unsched('node(s) had no available disk');

function restrictions(
  pod: Pod,
  existing: Pod[],
  pvcs: PersistentVolumeClaim[] = [],
  nodes = [nodeOf('node-1')],
) {
  return new PluginRunner({
    plugin: 'VolumeRestrictions',
    nodes,
    pods: existing,
    objects: { storage: { persistentVolumeClaims: pvcs } },
  }).run(pod);
}

/** one disk-conflict table: volState, volState2 as upstream */
function diskTable(title: string, vol: Record<string, unknown>, vol2: Record<string, unknown>) {
  describe(title, () => {
    const onNode = (v: Record<string, unknown>) => podWith('existing', [v], 'node-1');
    const rows: [string, Pod, Pod[], StatusResult, StatusResult | undefined][] = [
      ['nothing', podWith('new', []), [], SKIP, undefined],
      ['one state', podWith('new', []), [onNode(vol)], SKIP, undefined],
      ['same state', podWith('new', [vol]), [onNode(vol)], OK, DISK],
      ['different state', podWith('new', [vol2]), [onNode(vol)], OK, OK],
    ];
    for (const [name, pod, existing, pre, filter] of rows)
      it(name, () => {
        const r = restrictions(pod, existing);
        expect(r.preFilter).toEqual(pre);
        if (filter) expect(r.filter).toEqual({ 'node-1': filter });
        else expect(r.filter).toBeUndefined();
      });
    if (title.includes('GCE'))
      it("pod with a volume that doesn't have restrictions", () => {
        const r = restrictions(podWith('new', [{ name: 'volume with no restriction' }]), []);
        expect(r.preFilter).toEqual(SKIP);
      });
  });
}

diskTable(
  'VolumeRestrictions (TestGCEDiskConflicts)',
  { gcePersistentDisk: { pdName: 'foo' } },
  { gcePersistentDisk: { pdName: 'bar' } },
);
diskTable(
  'VolumeRestrictions (TestAWSDiskConflicts)',
  { awsElasticBlockStore: { volumeID: 'foo' } },
  { awsElasticBlockStore: { volumeID: 'bar' } },
);
diskTable(
  'VolumeRestrictions (TestRBDDiskConflicts)',
  { rbd: { monitors: ['a', 'b'], pool: 'foo', image: 'bar', fsType: 'ext4' } },
  { rbd: { monitors: ['c', 'd'], pool: 'foo', image: 'bar', fsType: 'ext4' } },
);
diskTable(
  'VolumeRestrictions (TestISCSIDiskConflicts)',
  {
    iscsi: {
      targetPortal: '127.0.0.1:3260',
      iqn: 'iqn.2016-12.server:storage.target01',
      fsType: 'ext4',
      lun: 0,
    },
  },
  {
    iscsi: {
      targetPortal: '127.0.0.1:3260',
      iqn: 'iqn.2017-12.server:storage.target01',
      fsType: 'ext4',
      lun: 0,
    },
  },
);

describe('VolumeRestrictions (TestAccessModeConflicts)', () => {
  const podWithOnePVC = claimPod('pod-with-one-pvc', ['claim-with-rwop-1'], 'node-1');
  const podWithTwoPVCs = claimPod('pod-with-two-pvcs', ['claim-with-rwop-1', 'claim-with-rwop-2'], 'node-1');
  const podWithOneConflict = claimPod('pod-with-one-conflict', ['claim-with-rwop-1']);
  const podWithTwoConflicts = claimPod('pod-with-two-conflicts', ['claim-with-rwop-1', 'claim-with-rwop-2']);
  const podWithRWX = claimPod('pod-with-rwx', ['claim-with-rwx'], 'node-1');
  const rwop1 = pvcOf('claim-with-rwop-1', { accessModes: ['ReadWriteOncePod'] });
  const rwop2 = pvcOf('claim-with-rwop-2', { accessModes: ['ReadWriteOncePod'] });
  const rwx = pvcOf('claim-with-rwx', { accessModes: ['ReadWriteMany'] });
  const RWOP = unsched(
    'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode',
  );
  const rows: [string, Pod, Pod[], PersistentVolumeClaim[], StatusResult, StatusResult | undefined][] = [
    ['nothing', podWith('new', []), [], [], SKIP, undefined],
    [
      'failed to get PVC',
      claimPod('pod-with-one-pvc', ['claim-with-rwop-1']),
      [],
      [],
      unres('persistentvolumeclaim "claim-with-rwop-1" not found'),
      undefined,
    ],
    [
      'no access mode conflict',
      claimPod('pod-with-one-pvc', ['claim-with-rwop-1']),
      [podWithRWX],
      [rwop1, rwx],
      SKIP,
      undefined,
    ],
    [
      'access mode conflict, unschedulable',
      podWithOneConflict,
      [podWithOnePVC, podWithRWX],
      [rwop1, rwx],
      OK,
      RWOP,
    ],
    [
      'two conflicts, unschedulable',
      podWithTwoConflicts,
      [podWithTwoPVCs, podWithRWX],
      [rwop1, rwop2, rwx],
      OK,
      RWOP,
    ],
  ];
  for (const [name, pod, existing, pvcs, pre, filter] of rows)
    it(name, () => {
      const r = restrictions(pod, existing, pvcs);
      expect(r.preFilter).toEqual(pre);
      if (filter) expect(r.filter).toEqual({ 'node-1': filter });
      else expect(r.filter).toBeUndefined();
    });
});

// VolumeBinding's storage capacity check and its CSI migration of bound in-tree volumes, through
// PluginRunner's Filter on upstream's binder fixtures (Kubernetes
// pkg/scheduler/framework/plugins/volumebinding/binder_test.go, transcribed as data):
// - TestCapacity: CSIStorageCapacity objects against a 1Gi WaitForFirstConsumer claim, each row run
//   with the CSIDriver opting into capacity tracking and not (v1.34: the CSIStorageCapacity gate is
//   GA, so only the driver's opt-in remains);
// - TestFindPodVolumesWithProvisioning: the rows run with no CSIDriver, a driver with capacity
//   tracking (no CSIStorageCapacity objects: every provisioning row gets ErrReasonNotEnoughSpace)
//   and a driver without it;
// - TestFindPodVolumesWithCSIMigration: a bound GCE PD volume with beta zone labels, on a node of
//   the same zone or another, with the node's CSINode migrated, not migrated or missing.
// Plus rows of kubesim's own for AWS EBS (GA zone in the volume's node affinity).
import { describe, expect, it } from 'vitest';
import type {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
} from '../../../src/api/storage-types.js';
import type { Node, Pod } from '../../../src/api/types.js';
import { PluginRunner } from '../../../src/scheduler/index.js';
import { nodeOf } from '../../helpers/builders.js';

const BIND = "node(s) didn't find available persistent volumes to bind";
const NODE = "node(s) didn't match PersistentVolume's node affinity";
const SPACE = 'node(s) did not have enough free storage';

const provisioner = 'test-provisioner';
const nodeLabelKey = 'nodeKey';

// ---- the fixtures of binder_test.go (names as there)

const sc = (name: string, o: Partial<StorageClass>): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: '',
  ...o,
});
const classes: StorageClass[] = [
  sc('waitClassWithProvisioner', {
    volumeBindingMode: 'WaitForFirstConsumer',
    provisioner,
    allowedTopologies: [
      { matchLabelExpressions: [{ key: nodeLabelKey, values: ['node1', 'reference-value'] }] },
    ],
  }),
  sc('immediateClass', { volumeBindingMode: 'Immediate' }),
  sc('waitClass', { volumeBindingMode: 'WaitForFirstConsumer', provisioner: 'kubernetes.io/no-provisioner' }),
  sc('topoMismatchClass', {
    volumeBindingMode: 'WaitForFirstConsumer',
    provisioner,
    allowedTopologies: [{ matchLabelExpressions: [{ key: nodeLabelKey, values: ['reference-value'] }] }],
  }),
];

type BoundState = 'unbound' | 'prebound' | 'bound' | 'selectedNode';

/** makeTestPVC */
function makeTestPVC(
  name: string,
  size: string,
  node: string,
  state: BoundState,
  pvName: string,
  className: string,
): PersistentVolumeClaim {
  const annotations: Record<string, string> = {};
  if (state === 'selectedNode') annotations['volume.kubernetes.io/selected-node'] = node;
  if (state === 'bound') annotations['pv.kubernetes.io/bind-completed'] = 'yes';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'testns', uid: 'pvc-uid', annotations },
    spec: {
      resources: { requests: { storage: size } },
      storageClassName: className,
      volumeMode: 'Filesystem',
      ...(state === 'bound' || state === 'prebound' ? { volumeName: pvName } : {}),
    },
  };
}

/** makeTestPV */
function makeTestPV(
  name: string,
  node: string,
  capacity: string,
  boundTo: PersistentVolumeClaim | undefined,
  className: string,
): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      ...(boundTo ? { annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes' } } : {}),
    },
    spec: {
      capacity: { storage: capacity },
      storageClassName: className,
      volumeMode: 'Filesystem',
      ...(node
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: nodeLabelKey, operator: 'In', values: [node] }] },
                ],
              },
            },
          }
        : {}),
      ...(boundTo
        ? {
            claimRef: {
              kind: 'PersistentVolumeClaim',
              apiVersion: 'v1',
              name: boundTo.metadata.name,
              namespace: 'testns',
              uid: boundTo.metadata.uid,
            },
          }
        : {}),
    },
    status: { phase: 'Available' },
  };
}

const unboundPVC = makeTestPVC('unbound-pvc', '1G', '', 'unbound', '', 'waitClass');
const boundPVC = makeTestPVC('bound-pvc', '1G', '', 'bound', 'pv-bound', 'waitClass');
const immediateUnboundPVC = makeTestPVC('immediate-unbound-pvc', '1G', '', 'unbound', '', 'immediateClass');
const immediateBoundPVC = makeTestPVC(
  'immediate-bound-pvc',
  '1G',
  '',
  'bound',
  'pv-bound-immediate',
  'immediateClass',
);
const provisionedPVC = makeTestPVC('provisioned-pvc', '1Gi', '', 'unbound', '', 'waitClassWithProvisioner');
const noProvisionerPVC = makeTestPVC('no-provisioner-pvc', '1Gi', '', 'unbound', '', 'waitClass');
const topoMismatchPVC = makeTestPVC('topo-mismatch-pvc', '1Gi', '', 'unbound', '', 'topoMismatchClass');
const selectedNodePVC = makeTestPVC(
  'provisioned-pvc',
  '1Gi',
  'node1',
  'selectedNode',
  '',
  'waitClassWithProvisioner',
);
const boundMigrationPVC = makeTestPVC(
  'pvc-migration-bound',
  '1G',
  '',
  'bound',
  'pv-migration-bound',
  'waitClass',
);

const pvNode1a = makeTestPV('pv-node1a', 'node1', '5G', undefined, 'waitClass');
const pvBound = makeTestPV('pv-bound', 'node1', '1G', boundPVC, 'waitClass');
const pvBoundImmediate = makeTestPV('pv-bound-immediate', 'node1', '1G', immediateBoundPVC, 'immediateClass');

/** makeTestPVForCSIMigration: a GCE PD with zone labels and no node affinity */
function makeTestPVForCSIMigration(
  labels: Record<string, string>,
  pvc: PersistentVolumeClaim,
): PersistentVolume {
  const pv = makeTestPV('pv-migration-bound', 'node1', '1G', pvc, 'waitClass');
  delete pv.spec.nodeAffinity;
  pv.metadata.labels = labels;
  pv.spec.gcePersistentDisk = { pdName: 'test-disk', fsType: 'ext4', partition: 0, readOnly: false } as never;
  return pv;
}
const zone1Labels = {
  'failure-domain.beta.kubernetes.io/zone': 'us-east-1',
  'failure-domain.beta.kubernetes.io/region': 'us-east-1a',
};
const migrationPVBound = makeTestPVForCSIMigration(zone1Labels, boundMigrationPVC);

const testNode: Node = nodeOf('node1', { labels: { [nodeLabelKey]: 'node1' } });
const node1Zone1: Node = nodeOf('node1', { labels: { 'topology.gke.io/zone': 'us-east-1' } });
const node1Zone2: Node = nodeOf('node1', { labels: { 'topology.gke.io/zone': 'us-east-2' } });

const makeCSINode = (name: string, migratedPlugin: string): CSINode => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSINode',
  metadata: { name, annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': migratedPlugin } },
  spec: { drivers: [] },
});
const csiNode1Migrated = makeCSINode('node1', 'kubernetes.io/gce-pd');
const csiNode1NotMigrated = makeCSINode('node1', '');

const makeCSIDriver = (name: string, storageCapacity: boolean): CSIDriver => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIDriver',
  metadata: { name },
  spec: { storageCapacity },
});

/** makeCapacity: node undefined = network-attached (an empty selector: every node) */
function makeCapacity(
  name: string,
  storageClassName: string,
  node: Node | undefined,
  capacity: string,
  maximumVolumeSize: string,
): CSIStorageCapacity {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name, namespace: 'kube-system' },
    storageClassName,
    nodeTopology: node ? { matchLabels: { [nodeLabelKey]: node.metadata.labels![nodeLabelKey]! } } : {},
    ...(capacity ? { capacity } : {}),
    ...(maximumVolumeSize ? { maximumVolumeSize } : {}),
  };
}
const node2: Node = nodeOf('node2', { labels: { [nodeLabelKey]: 'node2' } });

function podWith(claims: PersistentVolumeClaim[]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-pod', namespace: 'testns', uid: 'test-pod' },
    spec: {
      nodeName: undefined,
      containers: [],
      volumes: claims.map((c) => ({
        name: c.metadata.name,
        persistentVolumeClaim: { claimName: c.metadata.name! },
      })),
    },
  };
}

interface Setup {
  pvcs: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  node?: Node;
  csiNodes?: CSINode[];
  csiDrivers?: CSIDriver[];
  capacities?: CSIStorageCapacity[];
}

/** Filter on the one node, as `{code, reasons}`; PreFilter's status when it rejects */
function filterOnNode(s: Setup): { code: string; reasons: string[] } {
  const node = s.node ?? testNode;
  const r = new PluginRunner({
    plugin: 'VolumeBinding',
    nodes: [node],
    objects: {
      storage: {
        storageClasses: classes,
        persistentVolumeClaims: s.pvcs,
        persistentVolumes: s.pvs ?? [],
        csiNodes: s.csiNodes ?? [],
        csiDrivers: s.csiDrivers ?? [],
        csiStorageCapacities: s.capacities ?? [],
      },
    },
  }).run(podWith(s.pvcs));
  if (r.preFilter?.code !== 'Success') return r.preFilter!;
  return r.filter![node.metadata.name!]!;
}

const ok = { code: 'Success', reasons: [] };
const unresolvable = (...reasons: string[]) => ({ code: 'UnschedulableAndUnresolvable', reasons });

describe('VolumeBinding storage capacity (binder_test.go TestCapacity)', () => {
  const rows: { name: string; capacities: CSIStorageCapacity[]; reasons: string[] }[] = [
    {
      name: 'network-attached',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', undefined, '1Gi', '')],
      reasons: [],
    },
    {
      name: 'local-storage',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '1Gi', '')],
      reasons: [],
    },
    {
      name: 'multiple',
      capacities: [
        makeCapacity('net', 'waitClassWithProvisioner', undefined, '1Gi', ''),
        makeCapacity('net', 'waitClassWithProvisioner', node2, '1Gi', ''),
        makeCapacity('net', 'waitClassWithProvisioner', testNode, '1Gi', ''),
      ],
      reasons: [],
    },
    { name: 'no-storage', capacities: [], reasons: [SPACE] },
    {
      name: 'wrong-node',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', node2, '1Gi', '')],
      reasons: [SPACE],
    },
    {
      name: 'wrong-storage-class',
      capacities: [makeCapacity('net', 'waitClass', testNode, '1Gi', '')],
      reasons: [SPACE],
    },
    {
      name: 'insufficient-storage',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '1Mi', '')],
      reasons: [SPACE],
    },
    {
      name: 'insufficient-volume-size',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '1Gi', '1Mi')],
      reasons: [SPACE],
    },
    {
      name: 'zero-storage',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '0Mi', '')],
      reasons: [SPACE],
    },
    {
      name: 'zero-volume-size',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '', '0Mi')],
      reasons: [SPACE],
    },
    {
      name: 'nil-storage',
      capacities: [makeCapacity('net', 'waitClassWithProvisioner', testNode, '', '')],
      reasons: [SPACE],
    },
  ];
  for (const optIn of [true, false])
    describe(`CSIDriver.StorageCapacity=${optIn}`, () => {
      for (const row of rows)
        it(row.name, () => {
          const got = filterOnNode({
            pvcs: [provisionedPVC],
            csiDrivers: [makeCSIDriver(provisioner, optIn)],
            capacities: row.capacities,
          });
          // a driver that does not opt in is never checked
          expect(got).toEqual(optIn && row.reasons.length > 0 ? unresolvable(...row.reasons) : ok);
        });
    });
});

describe('VolumeBinding provisioning (binder_test.go TestFindPodVolumesWithProvisioning)', () => {
  const rows: {
    name: string;
    pvcs: PersistentVolumeClaim[];
    pvs?: PersistentVolume[];
    reasons?: string[];
    preFilter?: string;
    needsCapacity?: boolean;
  }[] = [
    { name: 'one-provisioned', pvcs: [provisionedPVC], needsCapacity: true },
    {
      name: 'two-unbound-pvcs,one-matched,one-provisioned',
      pvcs: [unboundPVC, provisionedPVC],
      pvs: [pvNode1a],
      needsCapacity: true,
    },
    {
      name: 'one-bound,one-provisioned',
      pvcs: [boundPVC, provisionedPVC],
      pvs: [pvBound],
      needsCapacity: true,
    },
    {
      name: 'one-binding,one-selected-node',
      pvcs: [boundPVC, selectedNodePVC],
      pvs: [pvBound],
      needsCapacity: true,
    },
    {
      name: 'immediate-unbound-pvc',
      pvcs: [immediateUnboundPVC],
      preFilter: 'pod has unbound immediate PersistentVolumeClaims',
    },
    {
      name: 'one-immediate-bound,one-provisioned',
      pvcs: [immediateBoundPVC, provisionedPVC],
      pvs: [pvBoundImmediate],
      needsCapacity: true,
    },
    { name: 'invalid-provisioner', pvcs: [noProvisionerPVC], reasons: [BIND] },
    { name: 'volume-topology-unsatisfied', pvcs: [topoMismatchPVC], reasons: [BIND] },
  ];
  const drivers: [string, CSIDriver | undefined][] = [
    ['no CSIDriver', undefined],
    ['CSIDriver with capacity tracking', makeCSIDriver(provisioner, true)],
    ['CSIDriver without capacity tracking', makeCSIDriver(provisioner, false)],
  ];
  for (const [description, driver] of drivers)
    describe(description, () => {
      for (const row of rows)
        it(row.name, () => {
          const got = filterOnNode({ pvcs: row.pvcs, pvs: row.pvs, csiDrivers: driver ? [driver] : [] });
          if (row.preFilter) {
            expect(got).toEqual(unresolvable(row.preFilter));
            return;
          }
          // without CSIStorageCapacity objects, a tracking driver blocks provisioning
          const reasons = [...(row.reasons ?? [])];
          if (row.needsCapacity && driver?.spec?.storageCapacity) reasons.push(SPACE);
          expect(got).toEqual(reasons.length > 0 ? unresolvable(...reasons) : ok);
        });
    });
});

describe('VolumeBinding and CSI migration (binder_test.go TestFindPodVolumesWithCSIMigration)', () => {
  const rows: { name: string; node: Node; csiNodes: CSINode[]; reasons: string[] }[] = [
    { name: 'pvc-bound', node: node1Zone1, csiNodes: [csiNode1Migrated], reasons: [] },
    {
      name: 'pvc-bound,csinode-not-migrated',
      node: node1Zone1,
      csiNodes: [csiNode1NotMigrated],
      reasons: [],
    },
    { name: 'pvc-bound,missing-csinode', node: node1Zone1, csiNodes: [], reasons: [] },
    {
      name: 'pvc-bound,node-different-zone',
      node: node1Zone2,
      csiNodes: [csiNode1Migrated],
      reasons: [NODE],
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const got = filterOnNode({
        pvcs: [boundMigrationPVC],
        pvs: [migrationPVBound],
        node: row.node,
        csiNodes: row.csiNodes,
      });
      expect(got).toEqual(row.reasons.length > 0 ? unresolvable(...row.reasons) : ok);
    });
});

describe('VolumeBinding and a migrated AWS EBS volume (GA zone in its node affinity)', () => {
  const claim = makeTestPVC('data', '10Gi', '', 'bound', 'ebs-pv', 'waitClass');
  const ebs: PersistentVolume = {
    ...makeTestPV('ebs-pv', '', '10Gi', claim, 'waitClass'),
    metadata: { name: 'ebs-pv', labels: { 'topology.kubernetes.io/zone': 'us-east-1a' } },
  };
  ebs.spec.awsElasticBlockStore = { volumeID: 'aws://us-east-1a/vol-0123456789abcdef0' };
  ebs.spec.nodeAffinity = {
    required: {
      nodeSelectorTerms: [
        {
          matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }],
        },
      ],
    },
  };
  // a node the EBS CSI driver labelled, without the GA zone label
  const ebsNode = (zone: string) => nodeOf('node1', { labels: { 'topology.ebs.csi.aws.com/zone': zone } });
  const migrated = makeCSINode('node1', 'kubernetes.io/aws-ebs');
  const rows: { name: string; node: Node; csiNodes: CSINode[]; reasons: string[] }[] = [
    {
      name: 'migrated, same zone: the driver topology matches',
      node: ebsNode('us-east-1a'),
      csiNodes: [migrated],
      reasons: [],
    },
    { name: 'migrated, another zone', node: ebsNode('us-east-1b'), csiNodes: [migrated], reasons: [NODE] },
    {
      name: 'not migrated on the node: the in-tree zone label is required',
      node: ebsNode('us-east-1a'),
      csiNodes: [csiNode1NotMigrated],
      reasons: [NODE],
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const got = filterOnNode({ pvcs: [claim], pvs: [ebs], node: row.node, csiNodes: row.csiNodes });
      expect(got).toEqual(row.reasons.length > 0 ? unresolvable(...row.reasons) : ok);
    });
});

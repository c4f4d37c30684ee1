// NodeVolumeLimits through PluginRunner, upstream's table transcribed as data (Kubernetes
// pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go TestCSILimits, with its fixtures
// getFakeCSIPVLister / getFakeCSIPVCLister / getFakeCSIStorageClassLister /
// getFakeVolumeAttachmentLister / getNodeWithPodAndVolumeLimits rebuilt as data below).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types.js';
import type {
  CSINode,
  PersistentVolume,
  PersistentVolumeClaim,
  VolumeAttachment,
} from '../../../src/api/storage-types.js';
import { PluginRunner, type StatusResult } from '../../../src/scheduler/index.js';
import { nodeOf } from '../../helpers/builders.js';

const EBS = 'ebs.csi.aws.com';
const GCE = 'pd.csi.storage.gke.io';
const AWS_IN_TREE = 'kubernetes.io/aws-ebs';
const HOSTPATH = 'kubernetes.io/hostpath';
const NODE = 'node-for-max-pd-test-1';
const SC = 'csi-sc';
const EXCEEDED: StatusResult = { code: 'Unschedulable', reasons: ['node(s) exceed max volume count'] };

let seq = 0;
function pod(
  volumes: Record<string, unknown>[],
  o: { name?: string; namespace?: string; uid?: string } = {},
): Pod {
  const name = o.name ?? `pod-${seq++}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: o.uid ?? name },
    spec: { containers: [], volumes },
  };
}
const claims = (...names: string[]) =>
  names.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } }));

/** getFakeCSIPVLister("csi", drivers…) */
function pvs(drivers: string[]): PersistentVolume[] {
  const out: PersistentVolume[] = [];
  for (const d of drivers)
    for (let j = 0; j < 4; j++) {
      const h = `csi-${d}-${j}`;
      const spec =
        d === AWS_IN_TREE
          ? { awsElasticBlockStore: { volumeID: h } }
          : d === HOSTPATH
            ? { hostPath: { path: '/tmp' } }
            : { csi: { driver: d, volumeHandle: h } };
      out.push({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: h }, spec });
    }
  return out;
}

const pvc = (
  name: string,
  spec: PersistentVolumeClaim['spec'],
  namespace = 'default',
  extra = {},
): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace, ...extra },
  spec,
});

/** getFakeCSIPVCLister("csi", "csi-sc", drivers…) */
function pvcs(drivers: string[]): PersistentVolumeClaim[] {
  const out: PersistentVolumeClaim[] = [];
  for (const d of drivers)
    for (let j = 0; j < 4; j++) out.push(pvc(`csi-${d}-${j}`, { volumeName: `csi-${d}-${j}` }));
  out.push(pvc('csi-4', { storageClassName: SC }));
  out.push(pvc('csi-5', {}));
  out.push(pvc('csi-6', { storageClassName: SC, volumeName: 'missing-in-action' }));
  return out;
}

/** getFakeVolumeAttachmentLister(count, drivers…) */
function vas(count: number, drivers: string[]): VolumeAttachment[] {
  const out: VolumeAttachment[] = [];
  for (const d of drivers)
    for (let j = 0; j < count; j++)
      out.push({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name: `va-${d}-${j}` },
        spec: { nodeName: NODE, attacher: d, source: { persistentVolumeName: `csi-${d}-${j}` } },
      });
  return out;
}

/** getNodeWithPodAndVolumeLimits' CSINode, with enableMigrationOnNode(aws-ebs) */
function csiNode(limitSource: string, max: number, drivers: string[]): CSINode | undefined {
  if (limitSource !== 'csinode' && limitSource !== 'csinode-with-no-limit') return undefined;
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: NODE, annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': AWS_IN_TREE } },
    spec: {
      drivers: drivers.map((name) => ({
        name,
        nodeID: NODE,
        ...(limitSource === 'csinode' ? { allocatable: { count: max } } : {}),
      })),
    },
  };
}

const runningPod = () => pod(claims(`csi-${EBS}-3`));
const pendingVolumePod = () => pod(claims('csi-4'));
const unboundPVCPod2 = () => pod(claims('csi-4'));
const missingPVPod = () => pod(claims('csi-6'));
const noSCPVCPod = () => pod(claims('csi-5'));
const gceTwoVolPod = () => pod(claims(`csi-${GCE}-1`, `csi-${GCE}-2`));
const inTreeOneVolPod = () => pod(claims(`csi-${AWS_IN_TREE}-0`));
const inTreeTwoVolPod = () => pod(claims(`csi-${AWS_IN_TREE}-1`, `csi-${AWS_IN_TREE}-2`));
const csiEBSOneVolPod = () => pod(claims(`csi-${EBS}-0`));
const csiEBSTwoVolPod = () => pod(claims(`csi-${EBS}-1`, `csi-${EBS}-2`));
const inTreeNonMigratableOneVolPod = () => pod(claims(`csi-${HOSTPATH}-0`));
const ephemeral = (name: string) => ({ name, ephemeral: {} });
const ephemeralVolumePod = () => pod([ephemeral('xyz')], { name: 'abc', namespace: 'test', uid: '12345' });
const ephemeralTwoVolumePod = () =>
  pod([ephemeral('x'), ephemeral('y')], { name: 'abc', namespace: 'test', uid: '12345II' });
const owned = (name: string, uid: string) =>
  pvc(name, { storageClassName: SC }, 'test', {
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'abc', uid, controller: true }],
  });
const ephemeralClaim = owned('abc-xyz', '12345');
const conflictingClaim = pvc('abc-xyz', { storageClassName: SC }, 'test');
const ephemeralClaimX = owned('abc-x', '12345II');
const ephemeralClaimY = owned('abc-y', '12345II');
const inTreeInlineVolPod = () => pod([{ awsElasticBlockStore: { volumeID: 'aws-inline1' } }]);
const inTreeInlineVolPodWithSameCSIVolumeID = () =>
  pod([{ awsElasticBlockStore: { volumeID: `csi-${EBS}-1` } }]);
const cm = { configMap: {} };
const secret = { secret: {} };
const onlyConfigmapAndSecretVolPod = () => pod([cm, secret]);
const pvcPodWithConfigmapAndSecret = () => pod([cm, secret, ...claims(`csi-${EBS}-0`)]);
const ephemeralPodWithConfigmapAndSecret = () =>
  pod([cm, secret, ephemeral('xyz')], { name: 'abc', namespace: 'test' });
const inlineMigratablePodWithConfigmapAndSecret = () =>
  pod([cm, secret, { awsElasticBlockStore: { volumeID: 'aws-inline1' } }]);

interface Row {
  test: string;
  newPod: Pod;
  existing?: Pod[];
  extraClaims?: PersistentVolumeClaim[];
  maxVols?: number;
  vaCount?: number;
  drivers: string[];
  limitSource?: string;
  want?: StatusResult;
  wantPreFilter?: StatusResult;
}

const ROWS: Row[] = [
  {
    test: 'should count VolumeAttachments towards volume limit when no pods exist',
    newPod: csiEBSOneVolPod(),
    maxVols: 2,
    drivers: [EBS],
    vaCount: 2,
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should schedule pod when VolumeAttachments count does not exceed limit',
    newPod: csiEBSOneVolPod(),
    maxVols: 2,
    drivers: [EBS],
    vaCount: 1,
    limitSource: 'csinode',
  },
  {
    test: 'fits when node volume limit >= new pods CSI volume',
    newPod: csiEBSOneVolPod(),
    existing: [runningPod(), csiEBSTwoVolPod()],
    maxVols: 4,
    drivers: [EBS],
    limitSource: 'csinode',
  },
  {
    test: "doesn't when node volume limit <= pods CSI volume",
    newPod: csiEBSOneVolPod(),
    existing: [runningPod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should when driver does not support volume limits',
    newPod: csiEBSOneVolPod(),
    existing: [runningPod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode-with-no-limit',
  },
  {
    test: 'count pending PVCs towards volume limit <= pods CSI volume',
    newPod: csiEBSOneVolPod(),
    existing: [pendingVolumePod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'count multiple pending pvcs towards volume limit >= pods CSI volume',
    newPod: csiEBSOneVolPod(),
    existing: [pendingVolumePod(), unboundPVCPod2(), csiEBSTwoVolPod()],
    maxVols: 4,
    drivers: [EBS],
    limitSource: 'csinode',
  },
  {
    test: 'should count PVCs with invalid PV name but valid SC',
    newPod: csiEBSOneVolPod(),
    existing: [missingPVPod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: "don't count pvcs with missing SC towards volume limit",
    newPod: csiEBSOneVolPod(),
    existing: [runningPod(), noSCPVCPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
  },
  {
    test: 'count pvcs with the same type towards volume limit',
    newPod: csiEBSOneVolPod(),
    existing: [gceTwoVolPod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS, GCE],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: "don't count pvcs with different type towards volume limit",
    newPod: gceTwoVolPod(),
    existing: [csiEBSTwoVolPod(), runningPod()],
    maxVols: 2,
    drivers: [EBS, GCE],
    limitSource: 'csinode',
  },
  {
    test: 'should count in-tree volumes if migration is enabled',
    newPod: inTreeOneVolPod(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'nil csi node',
    newPod: inTreeInlineVolPod(),
    existing: [inTreeTwoVolPod()],
    drivers: [AWS_IN_TREE, EBS],
  },
  {
    test: 'should count unbound in-tree volumes if migration is enabled',
    newPod: pendingVolumePod(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should not limit pod if volume used does not report limits',
    newPod: inTreeOneVolPod(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode-with-no-limit',
  },
  {
    test: 'should not count non-migratable in-tree volumes',
    newPod: inTreeNonMigratableOneVolPod(),
    existing: [csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [HOSTPATH, EBS],
    limitSource: 'csinode',
  },
  {
    test: 'should count in-tree inline volumes if migration is enabled',
    newPod: inTreeInlineVolPod(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)',
    newPod: inTreeOneVolPod(),
    existing: [csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)',
    newPod: inTreeInlineVolPod(),
    existing: [csiEBSTwoVolPod(), inTreeOneVolPod()],
    maxVols: 3,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)',
    newPod: inTreeInlineVolPodWithSameCSIVolumeID(),
    existing: [csiEBSTwoVolPod(), inTreeOneVolPod()],
    maxVols: 3,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
  },
  {
    test: 'should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)',
    newPod: csiEBSOneVolPod(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  // upstream's fake lister says `persistentvolumeclaims "abc-xyz" not found`; the informer's lister
  // (what kube-scheduler runs with) says `persistentvolumeclaim`
  {
    test: 'ephemeral volume missing',
    newPod: ephemeralVolumePod(),
    drivers: [EBS],
    limitSource: 'csinode-with-no-limit',
    want: {
      code: 'UnschedulableAndUnresolvable',
      reasons: ['looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found'],
    },
  },
  {
    test: 'ephemeral volume not owned',
    newPod: ephemeralVolumePod(),
    extraClaims: [conflictingClaim],
    drivers: [EBS],
    limitSource: 'csinode-with-no-limit',
    want: {
      code: 'Error',
      reasons: ['PVC test/abc-xyz was not created for pod test/abc (pod is not owner)'],
    },
  },
  {
    test: 'ephemeral volume unbound',
    newPod: ephemeralVolumePod(),
    extraClaims: [ephemeralClaim],
    drivers: [EBS],
    limitSource: 'csinode-with-no-limit',
  },
  {
    test: "ephemeral doesn't when node volume limit <= pods CSI volume",
    newPod: ephemeralVolumePod(),
    extraClaims: [ephemeralClaim],
    existing: [runningPod(), csiEBSTwoVolPod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
    newPod: csiEBSOneVolPod(),
    extraClaims: [ephemeralClaimX, ephemeralClaimY],
    existing: [runningPod(), ephemeralTwoVolumePod()],
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  // upstream runs this row with ephemeralEnabled false; generic ephemeral volumes are GA in v1.34 and the answer is the same
  {
    test: "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume, ephemeral disabled",
    newPod: csiEBSOneVolPod(),
    extraClaims: [ephemeralClaim],
    existing: [runningPod(), ephemeralVolumePod(), csiEBSTwoVolPod()],
    maxVols: 3,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
    newPod: csiEBSOneVolPod(),
    extraClaims: [ephemeralClaim],
    existing: [runningPod(), ephemeralVolumePod(), csiEBSTwoVolPod()],
    maxVols: 3,
    drivers: [EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
  {
    test: 'persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume',
    newPod: csiEBSOneVolPod(),
    extraClaims: [ephemeralClaim],
    existing: [runningPod(), ephemeralVolumePod(), csiEBSTwoVolPod()],
    maxVols: 5,
    drivers: [EBS],
    limitSource: 'csinode',
  },
  {
    test: 'skip Filter when the pod only uses secrets and configmaps',
    newPod: onlyConfigmapAndSecretVolPod(),
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
    wantPreFilter: { code: 'Skip', reasons: [] },
  },
  {
    test: "don't skip Filter when the pod has pvcs",
    newPod: pvcPodWithConfigmapAndSecret(),
    maxVols: 2,
    drivers: [EBS],
    limitSource: 'csinode',
  },
  {
    test: "don't skip Filter when the pod has ephemeral volumes",
    newPod: ephemeralPodWithConfigmapAndSecret(),
    drivers: [EBS],
    limitSource: 'csinode-with-no-limit',
    want: {
      code: 'UnschedulableAndUnresolvable',
      reasons: ['looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found'],
    },
  },
  {
    test: "don't skip Filter when the pod has inline migratable volumes",
    newPod: inlineMigratablePodWithConfigmapAndSecret(),
    existing: [inTreeTwoVolPod()],
    maxVols: 2,
    drivers: [AWS_IN_TREE, EBS],
    limitSource: 'csinode',
    want: EXCEEDED,
  },
];

describe('NodeVolumeLimits (TestCSILimits)', () => {
  for (const row of ROWS) {
    it(row.test, () => {
      const node = nodeOf(NODE);
      const cn = csiNode(row.limitSource ?? '', row.maxVols ?? 0, row.drivers);
      const existing = (row.existing ?? []).map((p) => ({ ...p, spec: { ...p.spec, nodeName: NODE } }));
      const r = new PluginRunner({
        plugin: 'NodeVolumeLimits',
        nodes: [node],
        pods: existing,
        objects: {
          storage: {
            persistentVolumes: pvs(row.drivers),
            persistentVolumeClaims: [...pvcs(row.drivers), ...(row.extraClaims ?? [])],
            storageClasses: [
              {
                apiVersion: 'storage.k8s.io/v1',
                kind: 'StorageClass',
                metadata: { name: SC },
                provisioner: row.drivers[0]!,
              },
            ],
            volumeAttachments: vas(row.vaCount ?? 0, row.drivers),
            csiNodes: cn ? [cn] : [],
          },
        },
      }).run(row.newPod);
      expect(r.preFilter).toEqual(row.wantPreFilter ?? { code: 'Success', reasons: [] });
      if (!row.wantPreFilter)
        expect(r.filter).toEqual({ [NODE]: row.want ?? { code: 'Success', reasons: [] } });
    });
  }
});

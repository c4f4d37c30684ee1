/**
 * DynamicResources through the public PluginRunner and SchedulerCore: upstream's TestPlugin cases
 * (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, v1.34 names and
 * reasons) transcribed as data — pod, claims, classes, slices, and what each extension point answers.
 */
import { describe, expect, it } from 'vitest';
import type { DeviceClass, ResourceClaim, ResourceSlice } from '../../../src/api/resource-types.js';
import type { Node, Pod } from '../../../src/api/types.js';
import { PluginRunner } from '../../../src/scheduler/plugin-runner.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import type { DynamicResources } from '../../../src/scheduler/plugins/dynamic-resources/plugin.js';
import { SchedulerCore } from '../../../src/scheduler/scheduler.js';

// upstream's fixtures (var block of dynamicresources_test.go)
const podName = 'my-pod';
const podUID = '1234';
const resourceName = 'my-resource';
const claimName = `${podName}-${resourceName}`;
const className = 'my-resource-class';
const driver = 'some-driver';
const ns = 'default';

const workerNode: Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'worker', labels: { 'kubernetes.io/hostname': 'worker' } },
  spec: {},
  status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
};
const otherNode = (name: string): Node => ({
  ...structuredClone(workerNode),
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
});

const podWith = (claims: object[], status?: object, uid = podUID): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: podName, namespace: ns, uid },
  spec: { containers: [{ name: 'c', image: 'pause' }], resourceClaims: claims },
  ...(status ? { status } : {}),
});
const podWithClaimName = podWith([{ name: resourceName, resourceClaimName: claimName }]);
const podWithClaimTemplate = podWith([{ name: resourceName, resourceClaimTemplateName: claimName }]);
const podWithClaimTemplateInStatus = podWith([{ name: resourceName, resourceClaimTemplateName: claimName }], {
  resourceClaimStatuses: [{ name: resourceName, resourceClaimName: claimName }],
});
const otherPodWithClaimName = podWith(
  [{ name: resourceName, resourceClaimName: claimName }],
  undefined,
  `${podUID}-II`,
);

const deviceClass: DeviceClass = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'DeviceClass',
  metadata: { name: className },
  spec: {},
};

const claim = (
  o: {
    name?: string;
    owner?: boolean;
    allocation?: object;
    reservedFor?: object[];
    deleted?: boolean;
    selectors?: string[];
  } = {},
): ResourceClaim => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: {
    name: o.name ?? claimName,
    namespace: ns,
    uid: `uid-${o.name ?? claimName}`,
    resourceVersion: '1',
    ...(o.owner === false
      ? {}
      : {
          ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: podName, uid: podUID, controller: true }],
        }),
    ...(o.deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: {
    devices: {
      requests: [
        {
          name: 'req-1',
          exactly: {
            deviceClassName: className,
            allocationMode: 'ExactCount',
            count: 1,
            ...(o.selectors ? { selectors: o.selectors.map((expression) => ({ cel: { expression } })) } : {}),
          },
        },
      ],
    },
  },
  ...(o.allocation || o.reservedFor
    ? {
        status: {
          ...(o.allocation ? { allocation: o.allocation } : {}),
          ...(o.reservedFor ? { reservedFor: o.reservedFor } : {}),
        },
      }
    : {}),
});

const allocationOn = (node: string, device = 'instance-1') => ({
  devices: { results: [{ request: 'req-1', driver, pool: node, device }] },
  nodeSelector: {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
  },
});
const pendingClaim = claim();
const allocatedClaim = claim({ allocation: allocationOn('worker') });
const inUseClaim = claim({
  allocation: allocationOn('worker'),
  reservedFor: [{ resource: 'pods', name: podName, uid: podUID }],
});
const allocatedClaimWithWrongTopology = claim({
  allocation: {
    ...allocationOn('worker-2'),
    nodeSelector: {
      nodeSelectorTerms: [
        { matchExpressions: [{ key: 'no-such-label', operator: 'In', values: ['no-such-value'] }] },
      ],
    },
  },
});
const otherClaim = claim({ name: 'not-my-claim', owner: false });

const slice = (node: string, devices: string[]): ResourceSlice => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: `${node}-${driver}` },
  spec: {
    driver,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices: devices.map((name) => ({ name })),
  },
});
const workerNodeSlice = slice('worker', ['instance-1']);

interface Case {
  pod: Pod;
  claims?: ResourceClaim[];
  classes?: DeviceClass[];
  slices?: ResourceSlice[];
  nodes?: Node[];
  want: {
    prefilter?: { code: string; reasons?: string[] };
    filter?: Record<string, { code: string; reasons?: string[] }>;
    postfilter?: { code: string; reasons: string[] };
    /** the allocation Reserve assumes for the claim */
    reserved?: object;
  };
}

const UNRESOLVABLE = 'UnschedulableAndUnresolvable';

const CASES: Record<string, Case> = {
  empty: {
    pod: { ...podWithClaimName, spec: { containers: [{ name: 'c', image: 'pause' }] } },
    want: { prefilter: { code: 'Skip' }, postfilter: { code: 'Unschedulable', reasons: [] } },
  },
  'claim-reference': {
    pod: podWithClaimName,
    claims: [allocatedClaim, otherClaim],
    want: { filter: { worker: { code: 'Success' } } },
  },
  'claim-template': {
    pod: podWithClaimTemplateInStatus,
    claims: [allocatedClaim, otherClaim],
    want: { filter: { worker: { code: 'Success' } } },
  },
  'missing-claim': {
    pod: podWithClaimTemplate,
    claims: [allocatedClaim, otherClaim],
    want: {
      prefilter: { code: UNRESOLVABLE, reasons: ['pod "default/my-pod": ResourceClaim not created yet'] },
    },
  },
  'deleted-claim': {
    pod: podWithClaimTemplateInStatus,
    claims: [claim({ allocation: allocationOn('worker'), deleted: true })],
    want: {
      prefilter: { code: UNRESOLVABLE, reasons: ['resourceclaim "my-pod-my-resource" is being deleted'] },
    },
  },
  'wrong-claim': {
    pod: podWithClaimTemplateInStatus,
    claims: [
      {
        ...allocatedClaim,
        metadata: {
          ...allocatedClaim.metadata,
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Pod', name: podName, uid: `${podUID}123`, controller: true },
          ],
        },
      },
    ],
    want: {
      prefilter: {
        code: UNRESOLVABLE,
        reasons: [
          'ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)',
        ],
      },
    },
  },
  'no-resources': {
    pod: podWithClaimName,
    claims: [pendingClaim],
    classes: [deviceClass],
    want: {
      filter: { worker: { code: UNRESOLVABLE, reasons: ['cannot allocate all claims'] } },
      postfilter: { code: 'Unschedulable', reasons: ['still not schedulable'] },
    },
  },
  'with-resources': {
    pod: podWithClaimName,
    claims: [pendingClaim],
    classes: [deviceClass],
    slices: [workerNodeSlice],
    want: { filter: { worker: { code: 'Success' } }, reserved: allocationOn('worker') },
  },
  'with-resources-has-finalizer': {
    pod: podWithClaimName,
    claims: [
      {
        ...pendingClaim,
        metadata: { ...pendingClaim.metadata, finalizers: ['resource.kubernetes.io/delete-protection'] },
      },
    ],
    classes: [deviceClass],
    slices: [workerNodeSlice],
    want: { filter: { worker: { code: 'Success' } }, reserved: allocationOn('worker') },
  },
  'missing-class': {
    pod: podWithClaimName,
    claims: [pendingClaim],
    want: {
      prefilter: { code: UNRESOLVABLE, reasons: [`request req-1: device class ${className} does not exist`] },
    },
  },
  'in-use-by-other': {
    pod: otherPodWithClaimName,
    claims: [
      {
        ...inUseClaim,
        status: {
          ...inUseClaim.status,
          reservedFor: Array.from({ length: 256 }, (_, i) => ({
            resource: 'pods',
            name: `p${i}`,
            uid: `u${i}`,
          })),
        },
      },
    ],
    want: { prefilter: { code: UNRESOLVABLE, reasons: ['resourceclaim in use'] } },
  },
  'wrong-topology': {
    pod: podWithClaimName,
    claims: [allocatedClaimWithWrongTopology],
    want: {
      filter: { worker: { code: UNRESOLVABLE, reasons: ['resourceclaim not available on the node'] } },
      postfilter: { code: 'Unschedulable', reasons: ['deallocation of ResourceClaim completed'] },
    },
  },
  'good-topology': {
    pod: podWithClaimName,
    claims: [allocatedClaim],
    want: { filter: { worker: { code: 'Success' } } },
  },
  'bad-CEL-selector': {
    pod: podWithClaimName,
    claims: [claim({ owner: true, selectors: ['device.attributes["some-driver"].noSuchAttribute'] })],
    classes: [deviceClass],
    slices: [workerNodeSlice],
    want: {
      filter: {
        worker: {
          code: 'Error',
          reasons: [
            'claim default/my-pod-my-resource: selector #0 on device some-driver/worker/instance-1: CEL runtime error: No such key: noSuchAttribute',
          ],
        },
      },
    },
  },
  'bad-class-CEL-selector': {
    pod: podWithClaimName,
    claims: [pendingClaim],
    classes: [
      {
        ...deviceClass,
        spec: { selectors: [{ cel: { expression: 'device.attributes["some-driver"].noSuchAttribute' } }] },
      },
    ],
    slices: [workerNodeSlice],
    want: {
      filter: {
        worker: {
          code: 'Error',
          reasons: [
            'class my-resource-class: selector #0 on device some-driver/worker/instance-1: CEL runtime error: No such key: noSuchAttribute',
          ],
        },
      },
    },
  },
  'structured-claim-on-other-node-only': {
    pod: podWithClaimName,
    claims: [pendingClaim],
    classes: [deviceClass],
    slices: [slice('worker-2', ['instance-1'])],
    nodes: [workerNode, otherNode('worker-2')],
    want: {
      filter: {
        worker: { code: UNRESOLVABLE, reasons: ['cannot allocate all claims'] },
        'worker-2': { code: 'Success' },
      },
      reserved: allocationOn('worker-2'),
    },
  },
};

describe('DynamicResources: upstream TestPlugin cases through the PluginRunner', () => {
  for (const [name, tc] of Object.entries(CASES)) {
    it(name, () => {
      const nodes = tc.nodes ?? [workerNode];
      const runner = new PluginRunner({
        plugin: 'DynamicResources',
        nodes,
        objects: {
          resources: {
            resourceClaims: tc.claims ?? [],
            deviceClasses: tc.classes ?? [],
            resourceSlices: tc.slices ?? [],
          },
        },
      });
      const r = runner.run(tc.pod);
      if (tc.want.prefilter)
        expect(r.preFilter).toEqual({
          code: tc.want.prefilter.code,
          reasons: tc.want.prefilter.reasons ?? [],
        });
      else expect(r.preFilter).toEqual({ code: 'Success', reasons: [] });
      for (const [node, s] of Object.entries(tc.want.filter ?? {}))
        expect(r.filter?.[node], node).toEqual({ code: s.code, reasons: s.reasons ?? [] });
      const plugin = runner.plugin as DynamicResources;
      if (tc.want.postfilter) {
        const state = new CycleState();
        plugin.preFilter(state, tc.pod);
        for (const n of nodes)
          if (state.tryRead('DynamicResources'))
            plugin.filter(state, tc.pod, runner.core.snapshot.get(n.metadata.name!)!);
        const pf = plugin.postFilter(state, tc.pod);
        expect({
          code: pf.status ? ['Success', 'Error', 'Unschedulable'][pf.status.code] : 'Success',
          reasons: pf.status?.reasons ?? [],
        }).toEqual(tc.want.postfilter);
      }
      if (tc.want.reserved) {
        const state = new CycleState();
        expect(plugin.preFilter(state, tc.pod)).toBeNull();
        const fit = nodes.find(
          (n) => plugin.filter(state, tc.pod, runner.core.snapshot.get(n.metadata.name!)!) === null,
        )!;
        expect(plugin.reserve(state, tc.pod, fit.metadata.name!)).toBeNull();
        const assumed = plugin.view.claims.get(`${ns}/${claimName}`)!;
        expect(assumed.status?.allocation).toEqual(tc.want.reserved);
        expect(assumed.metadata.finalizers).toEqual(['resource.kubernetes.io/delete-protection']);
        // the device is taken: a second pod's claim for the same class finds none
        plugin.unreserve(state, tc.pod, fit.metadata.name!);
        expect(plugin.view.claims.get(`${ns}/${claimName}`)!.status?.allocation).toBeUndefined();
      }
    });
  }
});

describe('DynamicResources in the default profile (SchedulerCore)', () => {
  it('places pods with claims until the devices run out, with FitError reason "cannot allocate all claims"', () => {
    const claims = ['a', 'b', 'c'].map((n) => ({
      ...pendingClaim,
      metadata: { ...pendingClaim.metadata, name: n, uid: n, ownerReferences: [] },
    }));
    const core = new SchedulerCore({
      kernel: 'js',
      nodes: [workerNode, otherNode('worker-2')],
      objects: {
        resources: {
          resourceClaims: claims,
          deviceClasses: [deviceClass],
          resourceSlices: [slice('worker', ['gpu-0']), slice('worker-2', ['gpu-0'])],
        },
      },
    });
    const placed: string[] = [];
    for (const n of ['a', 'b', 'c']) {
      const pod = podWith([{ name: 'gpu', resourceClaimName: n }], undefined, `pod-${n}`);
      pod.metadata.name = `pod-${n}`;
      const out = core.schedule(pod);
      if (out.kind !== 'scheduled') {
        expect(out.kind).toBe('unschedulable');
        expect(out.kind === 'unschedulable' && out.fitError.message).toBe(
          '0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
        );
        continue;
      }
      expect(core.reserveAndAssume(out)).toBeNull();
      placed.push(out.nodeName);
    }
    expect(placed.sort()).toEqual(['worker', 'worker-2']);
  });
});

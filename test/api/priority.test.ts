import { describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import type { ApiError } from '../../src/api/errors.js';
import {
  admitPodPriority,
  defaultPriorityClass,
  type PriorityClassLike,
  validatePriorityClassDefault,
} from '../../src/api/priority.js';
import type { KubeObject, Pod } from '../../src/api/types.js';
import { MemoryStore } from '../../src/store/memory/store.js';

// upstream: plugin/pkg/admission/priority/admission_test.go (classes and pods as there)
const pc = (
  name: string,
  value: number,
  globalDefault = false,
  preemptionPolicy?: string,
): PriorityClassLike => ({
  metadata: { name },
  value,
  globalDefault,
  preemptionPolicy,
});
const defaultClass1 = pc('default1', 1000, true);
const defaultClass2 = pc('default2', 2000, true);
const nondefaultClass1 = pc('nondefault1', 2000);
const systemClusterCritical = pc('system-cluster-critical', 2000000000, true);
const neverPreemptionPolicyClass = pc('nopreemptionpolicy', 2000, true, 'Never');
const preemptionPolicyClass = pc('nopreemptionpolicy', 2000, true, 'PreemptLowerPriority');

const pod = (name: string, ns: string, spec: Record<string, unknown>) => ({
  metadata: { name, namespace: ns },
  spec: { containers: [{ name: 'container' }], ...spec },
});
const pods = [
  pod('pod-w-priorityclass', 'namespace', { priorityClassName: 'default1' }),
  pod('pod-wo-priorityclass', 'namespace', {}),
  pod('pod-w-non-existing-priorityclass', 'namespace', { priorityClassName: 'non-existing' }),
  pod('pod-w-integer-priority', 'namespace', { priorityClassName: 'default1', priority: 1000 }),
  pod('pod-w-system-priority', 'kube-system', { priorityClassName: 'system-cluster-critical' }),
  pod('mirror-pod-w-system-priority', 'kube-system', { priorityClassName: 'system-cluster-critical' }),
  pod('mirror-pod-w-integer-priority', 'namespace', { priorityClassName: 'default1', priority: 1000 }),
  pod('pod-w-system-priority-in-nonsystem-namespace', 'non-system-namespace', {
    priorityClassName: 'system-cluster-critical',
  }),
  pod('pod-w-zero-priority-in-nonsystem-namespace', 'non-system-namespace', { priority: 0 }),
  pod('pod-w-priority-matching-default-priority', 'non-system-namespace', { priority: 2000 }),
  pod('pod-w-priority-matching-resolved-default-priority', 'kube-system', {
    priorityClassName: 'system-cluster-critical',
    priority: 2000000000,
  }),
  pod('pod-never-preemption-policy-matching-resolved-preemption-policy', 'kube-system', {
    priorityClassName: 'nopreemptionpolicy',
    priority: 2000,
  }),
  pod('pod-preemption-policy-matching-resolved-preemption-policy', 'kube-system', {
    priorityClassName: 'nopreemptionpolicy',
    priority: 2000,
    preemptionPolicy: 'PreemptLowerPriority',
  }),
  pod('pod-preemption-policy-not-matching-resolved-preemption-policy', 'kube-system', {
    priorityClassName: 'nopreemptionpolicy',
    priority: 2000,
    preemptionPolicy: 'Never',
  }),
];

// TestPodAdmission: name, existing classes, pod, expected priority, expect error, expected policy
const podCases: [string, PriorityClassLike[], number, number, boolean, string?][] = [
  ['Pod with priority class', [defaultClass1, nondefaultClass1], 0, 1000, false],
  ['Pod without priority class', [defaultClass1], 1, 1000, false],
  ['pod without priority class and no existing priority class', [], 1, 0, false],
  ['pod without priority class and no default class', [nondefaultClass1], 1, 0, false],
  ['pod with a system priority class', [systemClusterCritical], 4, 2000000000, false],
  ['Pod with non-existing priority class', [defaultClass1, nondefaultClass1], 2, 0, true],
  ['pod with integer priority', [], 3, 0, true],
  ['mirror pod with system priority class', [systemClusterCritical], 5, 2000000000, false],
  ['mirror pod with integer priority', [], 6, 0, true],
  [
    'pod with system critical priority in non-system namespace',
    [systemClusterCritical],
    7,
    2000000000,
    false,
  ],
  ['pod with priority that matches computed priority', [nondefaultClass1], 8, 0, false],
  ['pod with priority that matches default priority', [defaultClass2], 9, 2000, false],
  ['pod with priority that matches resolved priority', [systemClusterCritical], 10, 2000000000, false],
  ['pod with nil preemtpion policy', [preemptionPolicyClass], 11, 2000, false],
  [
    'pod with preemtpion policy that matches resolved preemtpion policy',
    [preemptionPolicyClass],
    12,
    2000,
    false,
    'PreemptLowerPriority',
  ],
  [
    "pod with preemtpion policy that does't matches resolved preemtpion policy",
    [preemptionPolicyClass],
    13,
    2000,
    true,
  ],
];

describe('Priority admission (upstream TestPodAdmission)', () => {
  for (const [name, classes, i, priority, expectError, policy] of podCases) {
    it(name, () => {
      const p = structuredClone(pods[i]!);
      if (expectError) {
        expect(() => admitPodPriority(p, classes)).toThrow();
        return;
      }
      admitPodPriority(p, classes);
      expect(p.spec.priority).toBe(priority);
      if (policy) expect(p.spec.preemptionPolicy).toBe(policy);
    });
  }

  it('a Never class gives its pods preemptionPolicy Never', () => {
    const p = structuredClone(pods[11]!);
    admitPodPriority(p, [neverPreemptionPolicyClass]);
    expect(p.spec.preemptionPolicy).toBe('Never');
  });
});

describe('default priority (upstream TestDefaultPriority, TestPriorityClassAdmission)', () => {
  it('resolves to the lowest-valued global default', () => {
    expect(defaultPriorityClass([defaultClass1])?.metadata.name).toBe('default1');
    expect(defaultPriorityClass([nondefaultClass1])).toBeUndefined();
    expect(defaultPriorityClass([defaultClass1, defaultClass2])?.metadata.name).toBe('default1');
    expect(defaultPriorityClass([defaultClass2])?.metadata.name).toBe('default2');
  });

  it('one default class is allowed, a second is not', () => {
    expect(() => validatePriorityClassDefault(defaultClass1, [], 'CREATE')).not.toThrow();
    expect(() => validatePriorityClassDefault(defaultClass2, [defaultClass1], 'CREATE')).toThrow(
      'PriorityClass default1 is already marked as default. Only one default can exist',
    );
    // the default class itself may be updated
    expect(() => validatePriorityClassDefault(defaultClass1, [defaultClass1], 'UPDATE')).not.toThrow();
  });
});

describe('PriorityClass through the ApiServer', () => {
  const setup = () => new ApiServer(new MemoryStore());
  const rejection = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as ApiError;
    }
    throw new Error('expected a rejection');
  };
  const podObj = (name: string, spec: Record<string, unknown> = {}) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }], ...spec },
    }) as Pod;
  const classObj = (name: string, value: number, extra: Record<string, unknown> = {}) =>
    ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      ...extra,
    }) as KubeObject;

  it('resolves classes on pod create, the system classes without storing them', async () => {
    const api = setup();
    await api.create(classObj('high', 1000, { preemptionPolicy: 'Never' }));
    const p = await api.create(podObj('a', { priorityClassName: 'high' }));
    expect([p.spec.priority, p.spec.preemptionPolicy]).toEqual([1000, 'Never']);
    const sys = await api.create(podObj('b', { priorityClassName: 'system-node-critical' }));
    expect(sys.spec.priority).toBe(2000001000);
    const plain = await api.create(podObj('c'));
    expect([plain.spec.priority, plain.spec.preemptionPolicy]).toEqual([0, 'PreemptLowerPriority']);
    await api.create(classObj('low', 10, { globalDefault: true }));
    const d = await api.create(podObj('d'));
    expect([d.spec.priorityClassName, d.spec.priority]).toEqual(['low', 10]);
  });

  it('rejects an unknown class like the apiserver', async () => {
    const e = await rejection(setup().create(podObj('x', { priorityClassName: 'gold' })));
    expect([e.code, e.message]).toEqual([
      403,
      'pods "x" is forbidden: no PriorityClass with name gold was found',
    ]);
  });

  it('validates PriorityClasses (ValidatePriorityClass, ValidatePriorityClassUpdate)', async () => {
    const api = setup();
    const sys = await rejection(api.create(classObj('system-foo', 5)));
    expect(sys.message).toBe(
      `PriorityClass.scheduling.k8s.io "system-foo" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class`,
    );
    const big = await rejection(api.create(classObj('huge', 1000000001)));
    expect(big.message).toContain(
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    );
    await api.create(classObj('system-cluster-critical', 2000000000));
    const c = await api.create(classObj('mid', 100));
    expect((c as unknown as { preemptionPolicy: string }).preemptionPolicy).toBe('PreemptLowerPriority');
    const upd = await rejection(api.update({ ...c, value: 101 } as KubeObject));
    expect(upd.message).toContain('value: Forbidden: may not be changed in an update.');
    await api.create(classObj('d1', 1, { globalDefault: true }));
    const second = await rejection(api.create(classObj('d2', 2, { globalDefault: true })));
    expect(second.message).toBe(
      'priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already marked as default. Only one default can exist',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/api/defaults.js';
import { lookupKind } from '../../src/api/registry.js';
import { validateObject, validateObjectUpdate } from '../../src/api/validation.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../src/api/validation-names.js';

function errs(obj: any, unknownFields: 'Strict' | 'Warn' | 'Ignore' = 'Strict'): string[] {
  const info = lookupKind(obj.apiVersion, obj.kind)!;
  const o = structuredClone(obj);
  applyDefaults(o);
  return validateObject(o, info, { unknownFields })
    .filter((e) => !e.warning)
    .map((e) => e.toString());
}

const pod = (spec: any, meta: any = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', ...meta },
  spec,
});
const c = (extra: any = {}) => ({ name: 'app', image: 'nginx', ...extra });
// apimachinery's IsQualifiedName (name part) and IsValidLabelValue messages, as upstream prints them
const QNAME =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('name syntax (apimachinery validation.go messages)', () => {
  it.each([
    ['my-name', []],
    ['123-abc', []],
    [
      'My-Name',
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['a.b', ['must not contain dots']],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ])('IsDNS1123Label(%j)', (v, want) => expect(isDNS1123Label(v)).toEqual(want));

  it('IsDNS1123Subdomain / IsDNS1035Label', () => {
    expect(isDNS1123Subdomain('example.com')).toEqual([]);
    expect(isDNS1123Subdomain('-x')).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toContain('must be no more than 253 characters');
    expect(isDNS1035Label('1abc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('IsQualifiedName / IsValidLabelValue', () => {
    expect(isQualifiedName('app.kubernetes.io/name')).toEqual([]);
    expect(isQualifiedName('/x')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('a/b/c')[0]).toMatch(/^a qualified name must consist of alphanumeric characters/);
    expect(isQualifiedName('-bad')).toEqual([
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('a b')).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
});

describe('validateObject', () => {
  const table: Array<[string, any, string[]]> = [
    ['valid pod', pod({ containers: [c()] }), []],
    ['no containers', pod({ containers: [] }), ['spec.containers: Required value']],
    [
      'container name required, image required',
      pod({ containers: [{}] }),
      ['spec.containers[0].name: Required value', 'spec.containers[0].image: Required value'],
    ],
    [
      'duplicate container names across init and app',
      pod({ initContainers: [c()], containers: [c()] }),
      ['spec.containers[0].name: Duplicate value: "app"'],
    ],
    [
      'bad quantity',
      pod({ containers: [c({ resources: { requests: { cpu: '1.5x' } } })] }),
      [
        `spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ],
    ],
    [
      'negative quantity',
      pod({ containers: [c({ resources: { limits: { memory: '-1Gi' } } })] }),
      [
        'spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
      ],
    ],
    [
      'request above limit',
      pod({ containers: [c({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] }),
      [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      ],
    ],
    [
      'extended resource must be integer',
      pod({ containers: [c({ resources: { limits: { 'example.com/gpu': '500m' } } })] }),
      [
        'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
        'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
      ],
    ],
    [
      'extended resource request must equal limit',
      pod({
        containers: [
          c({ resources: { requests: { 'example.com/gpu': '2' }, limits: { 'example.com/gpu': '1' } } }),
        ],
      }),
      ['spec.containers[0].resources.requests: Invalid value: "2": must be equal to example.com/gpu limit'],
    ],
    [
      'port out of range',
      pod({ containers: [c({ ports: [{ containerPort: 70000 }] })] }),
      [
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'bad protocol',
      pod({ containers: [c({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] }),
      [
        'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      ],
    ],
    [
      'restartPolicy',
      pod({ containers: [c()], restartPolicy: 'Sometimes' }),
      [
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
      ],
    ],
    [
      'sidecar restartPolicy on app container',
      pod({ containers: [c({ restartPolicy: 'Always' })] }),
      ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
    ],
    [
      'toleration Exists with value',
      pod({ containers: [c()], tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] }),
      ['spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\''],
    ],
    [
      'node affinity terms',
      pod({
        containers: [c()],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'zone', operator: 'In' },
                    { key: 'gpu', operator: 'Exists', values: ['x'] },
                    { key: 'cores', operator: 'Gt', values: ['1', '2'] },
                    { key: 'k', operator: 'Near', values: ['a'] },
                  ],
                  matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['a', 'b'] }],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 0, preference: { matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] } },
            ],
          },
        },
      }),
      [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: Invalid value: "Near": not a valid selector operator',
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key',
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
      ],
    ],
    [
      'empty required node affinity',
      pod({
        containers: [c()],
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
        },
      }),
      [
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
      ],
    ],
    [
      'pod anti-affinity topologyKey and weight',
      pod({
        containers: [c()],
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'x' } } },
            ],
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 101,
                podAffinityTerm: {
                  topologyKey: 'zone',
                  labelSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
                },
              },
            ],
          },
        },
      }),
      [
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
        'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100',
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'topology spread',
      pod({
        containers: [c()],
        topologySpreadConstraints: [
          { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      }),
      // ValidateSpreadConstraintNotRepeat compares a constraint with the ones after it: the first of a
      // repeated pair is reported, between whenUnsatisfiable and minDomains
      [
        'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
        'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, ScheduleAnyway}"',
        'spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
      ],
    ],
    [
      // ValidateLabelSelector (AllowInvalidLabelValueInSelector false on create) and
      // validateMatchLabelKeysInTopologySpread: a selector the scheduler would otherwise evaluate
      'topology spread label selector values, matchLabelKeys, node inclusion policies',
      pod({
        containers: [c()],
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'zone',
            whenUnsatisfiable: 'DoNotSchedule',
            nodeAffinityPolicy: 'Always',
            labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'a b'] }] },
            matchLabelKeys: ['pod-template-hash', 'bad key'],
          },
          { maxSkew: 1, topologyKey: 'host', whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['x'] },
        ],
      }),
      [
        'spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"',
        `spec.topologySpreadConstraints[0].matchLabelKeys[1]: Invalid value: "bad key": name part ${QNAME}`,
        `spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[1]: Invalid value: "a b": ${LABEL_VALUE}`,
        'spec.topologySpreadConstraints[1].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set',
      ],
    ],
    [
      // validatePodAffinityTerm: ValidatePodAffinityTermSelector (labelSelector, namespaceSelector),
      // then validateMatchLabelKeysAndMismatchLabelKeys, then topologyKey
      'pod (anti-)affinity label selectors, matchLabelKeys and mismatchLabelKeys',
      pod({
        containers: [c()],
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: {
                  matchLabels: { app: 'web' },
                  matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['-x'] }],
                },
                namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a/b'] }] },
                matchLabelKeys: ['app', 'tier'],
                mismatchLabelKeys: ['tier'],
                topologyKey: 'zone',
              },
            ],
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 10, podAffinityTerm: { topologyKey: 'zone', mismatchLabelKeys: ['tier'] } },
            ],
          },
        },
      }),
      [
        `spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]: Invalid value: "-x": ${LABEL_VALUE}`,
        `spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "a/b": ${LABEL_VALUE}`,
        'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector',
        'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[1]: Invalid value: "tier": exists in both matchLabelKeys and mismatchLabelKeys',
        'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set',
      ],
    ],
    [
      'unknown field',
      pod({ containers: [c({ foo: 1 })], bar: true }),
      ['spec.containers[0].foo: unknown field', 'spec.bar: unknown field'],
    ],
    [
      'bad name and labels',
      pod({ containers: [c()] }, { name: 'Web_0', labels: { 'a b': 'x', ok: 'bad value' } }),
      [
        `metadata.name: Invalid value: "Web_0": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        `metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
    [
      'name or generateName',
      { apiVersion: 'v1', kind: 'Namespace', metadata: {} },
      ['metadata.name: Required value: name or generateName is required'],
    ],
    [
      'namespace on cluster-scoped',
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', namespace: 'x' } },
      ['metadata.namespace: Forbidden: not allowed on this type'],
    ],
    [
      'node allocatable quantity',
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { allocatable: { cpu: 'lots' } } },
      [
        `status.allocatable[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ],
    ],
    [
      'node taint effect',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'n' },
        spec: { taints: [{ key: 'k', effect: 'Sometimes' }] },
      },
      [
        'spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"',
      ],
    ],
    [
      'deployment selector mismatch',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: 'x' },
        spec: {
          replicas: -1,
          selector: { matchLabels: { app: 'a' } },
          template: { metadata: { labels: { app: 'b' } }, spec: { containers: [c()] } },
        },
      },
      [
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`',
      ],
    ],
    [
      // ValidateDeploymentSpec: a selector LabelSelectorAsSelector rejects is reported, not matched
      'deployment selector with an unknown operator',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: 'x' },
        spec: {
          selector: {
            matchLabels: { app: 'a' },
            matchExpressions: [{ key: 'tier', operator: 'Near', values: ['x'] }],
          },
          template: { metadata: { labels: { app: 'b' } }, spec: { containers: [c()] } },
        },
      },
      [
        'spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "DoesNotExist", "Exists", "In", "NotIn"',
        'spec.selector: Invalid value: {"matchLabels":{"app":"a"},"matchExpressions":[{"key":"tier","operator":"Near","values":["x"]}]}: invalid label selector',
      ],
    ],
    [
      'deployment empty selector + template restartPolicy',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { selector: {}, template: { spec: { containers: [c()], restartPolicy: 'Never' } } },
      },
      [
        'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      ],
    ],
    [
      'deployment surge and unavailable both 0',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [c()] } },
        },
      },
      ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0'],
    ],
    [
      'replicaset selector required',
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'r' },
        spec: { template: { spec: { containers: [c()] } } },
      },
      ['spec.selector: Required value'],
    ],
    [
      'service ports',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'svc' },
        spec: {
          type: 'ClusterIP',
          ports: [
            { port: 80, nodePort: 30001 },
            { port: 0, name: 'b' },
            { port: 80, name: 'c' },
          ],
        },
      },
      [
        'spec.ports[0].name: Required value',
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
        'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.ports[2]: Duplicate value: "80/TCP"',
      ],
    ],
    [
      'service name is DNS-1035',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: '1svc' }, spec: { ports: [{ port: 80 }] } },
      [
        `metadata.name: Invalid value: "1svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      'service type and ExternalName',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'ExternalName' } },
      ['spec.externalName: Required value'],
    ],
    [
      'service no ports',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { a: 'b' } } },
      ['spec.ports: Required value'],
    ],
    [
      'endpointslice',
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'e' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.300'] }, { addresses: [] }],
        ports: [{ name: 'http', port: 0, protocol: 'TCP' }],
      },
      [
        'endpoints[0].addresses[0]: Invalid value: "10.0.0.300": must be a valid IPv4 address',
        'endpoints[1].addresses: Required value: must contain at least 1 address',
        'ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'lease duration',
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l' },
        spec: { leaseDurationSeconds: 0 },
      },
      ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
    ],
    [
      'event namespace mismatch',
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e', namespace: 'a' },
        involvedObject: { namespace: 'b' },
      },
      ['involvedObject.namespace: Invalid value: "b": does not match event.namespace'],
    ],
    [
      'namespace name is a DNS label',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } },
      ['metadata.name: Invalid value: "a.b": must not contain dots'],
    ],
  ];
  it.each(table)('%s', (_name, obj, want) => {
    expect(errs(obj)).toEqual(want);
  });

  it('unknown fields as warnings or ignored', () => {
    const o = pod({ containers: [c({ foo: 1 })] });
    expect(errs(o, 'Warn')).toEqual([]);
    const info = lookupKind('v1', 'Pod')!;
    const w = validateObject(o, info, { unknownFields: 'Warn' });
    expect(w.map((e) => [e.toString(), e.warning])).toEqual([
      ['spec.containers[0].foo: unknown field', true],
    ]);
    expect(validateObject(o, info, { unknownFields: 'Ignore' })).toEqual([]);
  });
});

describe('validateObjectUpdate', () => {
  it('pod spec immutability and tolerations', () => {
    const info = lookupKind('v1', 'Pod')!;
    const old = pod({ containers: [c()], tolerations: [{ key: 'a', operator: 'Exists' }] });
    const ok = structuredClone(old);
    ok.spec.containers[0].image = 'nginx:2';
    ok.spec.tolerations.push({ key: 'b', operator: 'Exists' });
    expect(validateObjectUpdate(ok, old, info)).toEqual([]);
    const bad = structuredClone(old);
    bad.spec.nodeName = 'n1';
    expect(validateObjectUpdate(bad, old, info).map(String)[0]).toMatch(
      /^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/,
    );
    const removed = structuredClone(old);
    removed.spec.tolerations = [];
    expect(validateObjectUpdate(removed, old, info).map(String)).toEqual([
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
  });
});

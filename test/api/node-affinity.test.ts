// Required node affinity on Node objects (src/api/node-affinity.ts), table-tested with upstream's
// cases (Kubernetes v1.32: pkg/apis/core/v1/helper/helpers_test.go TestMatchNodeSelectorTerms; a
// node's labels are its labels, its fields are {metadata.name: its name}).
import { describe, expect, it } from 'vitest';
import { nodeSelectorTermsMatch, requiredNodeAffinityMatches } from '../../src/api/node-affinity.js';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../src/api/types.js';

const node = (labels?: Record<string, string>, name = ''): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
});
const inReq = (key: string, ...values: string[]): NodeSelectorRequirement => ({
  key,
  operator: 'In',
  values,
});

describe('MatchNodeSelectorTerms (helpers_test.go)', () => {
  const cases: Array<[string, NodeSelectorTerm[], Node, boolean]> = [
    ['nil terms', [], node(), false],
    [
      'node label matches matchExpressions terms',
      [{ matchExpressions: [inReq('label_1', 'label_1_val')] }],
      node({ label_1: 'label_1_val' }),
      true,
    ],
    [
      'node field matches matchFields terms',
      [{ matchFields: [inReq('metadata.name', 'host_1')] }],
      node(undefined, 'host_1'),
      true,
    ],
    [
      // node_affinity_test.go: "Pod with an invalid value in Affinity term won't be scheduled onto the node"
      'invalid label value in a term: the term matches nothing',
      [{ matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^'] }] }],
      node({ foo: 'bar' }),
      false,
    ],
    [
      'a term that does not parse is dropped, the others still count (LazyErrorNodeSelector)',
      [
        { matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['a b'] }] },
        { matchExpressions: [inReq('foo', 'bar')] },
      ],
      node({ foo: 'bar' }),
      true,
    ],
    [
      'a field other than metadata.name reads as "" (fields.Set)',
      [{ matchFields: [{ key: 'spec.unschedulable', operator: 'NotIn', values: ['true'] }] }],
      node(undefined, 'host_1'),
      true,
    ],
    [
      'invalid node field requirement',
      [{ matchFields: [inReq('metadata.name', 'host_1, host_2')] }],
      node(undefined, 'host_1'),
      false,
    ],
    [
      'fieldSelectorTerm with node labels',
      [{ matchFields: [inReq('metadata.name', 'host_1')] }],
      node({ 'metadata.name': 'host_1' }),
      false,
    ],
    [
      'labelSelectorTerm with node fields',
      [{ matchExpressions: [inReq('metadata.name', 'host_1')] }],
      node(undefined, 'host_1'),
      false,
    ],
    [
      'labelSelectorTerm and fieldSelectorTerm was set, but only node fields',
      [
        {
          matchExpressions: [inReq('label_1', 'label_1_val')],
          matchFields: [inReq('metadata.name', 'host_1')],
        },
      ],
      node(undefined, 'host_1'),
      false,
    ],
    [
      'labelSelectorTerm and fieldSelectorTerm was set, both node fields and labels (both matched)',
      [
        {
          matchExpressions: [inReq('label_1', 'label_1_val')],
          matchFields: [inReq('metadata.name', 'host_1')],
        },
      ],
      node({ label_1: 'label_1_val' }, 'host_1'),
      true,
    ],
    [
      'labelSelectorTerm and fieldSelectorTerm was set, both node fields and labels (one mismatched)',
      [
        {
          matchExpressions: [inReq('label_1', 'label_1_val')],
          matchFields: [inReq('metadata.name', 'host_1')],
        },
      ],
      node({ label_1: 'label_1_val-failed' }, 'host_1'),
      false,
    ],
    [
      'multi-selector was set, both node fields and labels (one mismatched)',
      [
        { matchExpressions: [inReq('label_1', 'label_1_val')] },
        { matchFields: [inReq('metadata.name', 'host_1')] },
      ],
      node({ label_1: 'label_1_val-failed' }, 'host_1'),
      true,
    ],
  ];
  it.each(cases)('%s', (_name, terms, n, want) => {
    expect(nodeSelectorTermsMatch(terms, n)).toBe(want);
  });
});

describe('Gt / Lt compare integers as strconv.ParseInt reads them', () => {
  const pod = (operator: 'Gt' | 'Lt', value: string): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'i' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'cores', operator, values: [value] }] }],
          },
        },
      },
    },
  });
  it.each([
    ['Gt', '4', '8', true],
    ['Gt', '4', '+8', true], // ParseInt accepts a sign
    ['Lt', '4', '-8', true],
    ['Gt', '4', 'eight', false],
    ['Gt', 'four', '8', false],
    // beyond 2^53: compared exactly, not as doubles
    ['Gt', '9007199254740992', '9007199254740993', true],
    ['Gt', '4', '9223372036854775808', false], // out of int64 range: not an integer
  ] as const)('%s %s vs label %s → %s', (op, bound, label, want) => {
    expect(requiredNodeAffinityMatches(pod(op, bound), node({ cores: label }))).toBe(want);
  });
});

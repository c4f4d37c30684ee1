// Required node affinity on Node objects (src/api/node-affinity.ts), table-tested with upstream's
// cases (Kubernetes v1.32: pkg/apis/core/v1/helper/helpers_test.go TestMatchNodeSelectorTerms; a
// node's labels are its labels, its fields are {metadata.name: its name}).
import { describe, expect, it } from 'vitest';
import {
  nodeSelectorTermsMatch,
  requiredNodeAffinityMask,
  requiredNodeAffinityMatches,
} from '../../src/api/node-affinity.js';
import { Rng } from '../../src/util/rng.js';
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

describe('requiredNodeAffinityMask: decided per label value, the same as node by node', () => {
  // random nodes and pods over a few keys and values (numbers for Gt/Lt, one invalid value, keys
  // some nodes lack): every pod's mask must equal requiredNodeAffinityMatches on each node
  const rng = new Rng(7);
  const KEYS = ['zone', 'pool', 'cores', 'arch'];
  const VALUES = ['a', 'b', 'c', '4', '8', '-2', '9007199254740993'];
  const OPS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const;
  const nodes: Node[] = [];
  for (let j = 0; j < 60; j++) {
    const labels: Record<string, string> = {};
    for (const k of KEYS) if (rng.int(4) > 0) labels[k] = rng.pick(VALUES);
    nodes.push(node(j % 7 === 0 ? undefined : labels, `n${j}`));
  }
  const valuesOf = (key: string) => {
    const values: string[] = [];
    const ids = new Int32Array(nodes.length).fill(-1);
    nodes.forEach((n, j) => {
      const l = n.metadata.labels;
      if (!l || !Object.hasOwn(l, key)) return;
      let id = values.indexOf(l[key]);
      if (id < 0) id = values.push(l[key]) - 1;
      ids[j] = id;
    });
    return { ids, values };
  };
  const requirement = (): NodeSelectorRequirement => {
    const operator = rng.pick(OPS);
    const key = rng.pick(KEYS);
    if (operator === 'Exists' || operator === 'DoesNotExist') return { key, operator };
    if (operator === 'Gt' || operator === 'Lt') return { key, operator, values: [rng.pick(['3', '5', 'x'])] };
    const values = [rng.pick(VALUES), rng.pick([...VALUES, 'bad value!'])];
    return { key, operator, values };
  };
  const pods: Pod[] = [];
  for (let i = 0; i < 300; i++) {
    const terms: NodeSelectorTerm[] = [];
    const nTerms = rng.int(4) - 1; // -1: no node affinity at all
    for (let t = 0; t < nTerms; t++) {
      const n = rng.int(3); // 0: an empty term, which selects nothing
      terms.push({ matchExpressions: Array.from({ length: n }, requirement) });
    }
    const nodeSelector: Record<string, string> = {};
    if (rng.int(3) === 0) nodeSelector[rng.pick(KEYS)] = rng.pick([...VALUES, 'nowhere']);
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${i}`, namespace: 'default' },
      spec: {
        containers: [{ name: 'c', image: 'i' }],
        nodeSelector,
        ...(nTerms >= 0
          ? {
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms },
                },
              },
            }
          : {}),
      },
    });
  }
  it('300 pods × 60 nodes', () => {
    for (const pod of pods) {
      const mask = requiredNodeAffinityMask(pod, nodes.length, valuesOf);
      expect(mask).toBeDefined();
      const want = nodes.map((n) => (requiredNodeAffinityMatches(pod, n) ? 1 : 0));
      expect([...mask!], JSON.stringify(pod.spec)).toEqual(want);
    }
  });
  it('a term with matchFields is left to the per-node match', () => {
    const pod = pods[0];
    const withFields: Pod = {
      ...pod,
      spec: {
        ...pod.spec,
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [inReq('metadata.name', 'n1')] }],
            },
          },
        },
      },
    };
    expect(requiredNodeAffinityMask(withFields, nodes.length, valuesOf)).toBeUndefined();
  });
});

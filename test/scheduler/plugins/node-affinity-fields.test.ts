// NodeAffinity `matchFields` (metadata.name) through the public PluginRunner, on both kernels: the
// matchFields rows of Kubernetes v1.34 nodeaffinity/node_affinity_test.go TestNodeAffinity (PreFilter
// status and PreFilterResult, then Filter), transcribed as data, and preferred terms naming nodes
// (component-helpers nodeaffinity.go: a preferred term's matchFields read the node's name, as its
// required terms do).
import { describe, expect, it } from 'vitest';
import type { NodeSelectorTerm, Pod } from '../../../src/api/types.js';
import { PluginRunner } from '../../../src/scheduler/index.js';
import { nodeOf, podOf } from '../../helpers/builders.js';

const KERNELS = ['js', 'wasm'] as const;
const ok = { code: 'Success', reasons: [] };
const ERR_REASON_POD = {
  code: 'UnschedulableAndUnresolvable',
  reasons: ["node(s) didn't match Pod's node affinity/selector"],
};
const CONFLICT = { code: 'UnschedulableAndUnresolvable', reasons: ['pod affinity terms conflict'] };

const name = (...values: string[]) => ({ key: 'metadata.name', operator: 'In' as const, values });
const foo = (v: string) => ({ key: 'foo', operator: 'In' as const, values: [v] });
const req = (...terms: NodeSelectorTerm[]): Pod =>
  podOf({
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
    },
  });

interface Row {
  name: string;
  pod: Pod;
  nodeName: string;
  labels?: Record<string, string>;
  /** PreFilter's status (Success unless given) */
  preFilter?: typeof ok;
  /** the PreFilterResult's node names; undefined: none */
  preFilterResult?: string[];
  /** Filter's status on the node; undefined: Success */
  filter?: typeof ok;
}

const ROWS: Row[] = [
  {
    name: 'Pod with matchFields using In operator that matches the existing node',
    pod: req({ matchFields: [name('node1')] }),
    nodeName: 'node1',
    preFilterResult: ['node1'],
  },
  {
    name: 'Pod with matchFields using In operator that does not match the existing node',
    pod: req({ matchFields: [name('node1')] }),
    nodeName: 'node2',
    preFilterResult: ['node1'],
    filter: ERR_REASON_POD,
  },
  {
    name: 'Pod with two terms: matchFields does not match, but matchExpressions matches',
    pod: req({ matchFields: [name('node1')] }, { matchExpressions: [foo('bar')] }),
    nodeName: 'node2',
    labels: { foo: 'bar' },
  },
  {
    name: 'Pod with one term: matchFields does not match, but matchExpressions matches',
    pod: req({ matchFields: [name('node1')], matchExpressions: [foo('bar')] }),
    nodeName: 'node2',
    labels: { foo: 'bar' },
    preFilterResult: ['node1'],
    filter: ERR_REASON_POD,
  },
  {
    name: 'Pod with one term: both matchFields and matchExpressions match',
    pod: req({ matchFields: [name('node1')], matchExpressions: [foo('bar')] }),
    nodeName: 'node1',
    labels: { foo: 'bar' },
    preFilterResult: ['node1'],
  },
  {
    name: 'Pod with two terms: both matchFields and matchExpressions do not match',
    pod: req({ matchFields: [name('node1')] }, { matchExpressions: [foo('not-match-to-bar')] }),
    nodeName: 'node2',
    labels: { foo: 'bar' },
    filter: ERR_REASON_POD,
  },
  {
    name: 'Pod with two terms of node.Name affinity',
    pod: req({ matchFields: [name('node1')] }, { matchFields: [name('node2')] }),
    nodeName: 'node2',
    preFilterResult: ['node1', 'node2'],
  },
  {
    name: 'Pod with two conflicting mach field requirements',
    pod: req({ matchFields: [name('node1'), name('node2')] }),
    nodeName: 'node2',
    labels: { foo: 'bar' },
    preFilter: CONFLICT,
    filter: ERR_REASON_POD,
  },
];

describe('NodeAffinity matchFields (TestNodeAffinity rows)', () => {
  for (const kernel of KERNELS)
    for (const row of ROWS)
      it(`${row.name} (${kernel})`, () => {
        const node = nodeOf(row.nodeName, { labels: row.labels ?? {}, capacity: { pods: '110' } });
        const r = new PluginRunner({ plugin: 'NodeAffinity', nodes: [node], kernel }).run(row.pod);
        expect(r.preFilter).toEqual(row.preFilter ?? ok);
        expect(r.preFilterResult).toEqual(row.preFilterResult);
        // upstream runs Filter whatever PreFilter answered; a rejecting PreFilter ends the runner's cycle
        if (row.preFilter === undefined) expect(r.filter?.[row.nodeName]).toEqual(row.filter ?? ok);
        else expect(r.filter).toBeUndefined();
      });
});

describe('NodeAffinity preferred terms with matchFields (Score + NormalizeScore)', () => {
  const pod = podOf({
    affinity: {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 2, preference: { matchFields: [name('node1')] } },
          // two conflicting field requirements in one term: it matches no node
          { weight: 3, preference: { matchFields: [name('node1'), name('node2')] } },
          {
            weight: 4,
            preference: {
              matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node1'] }],
              matchExpressions: [foo('bar')],
            },
          },
        ],
      },
    },
  });
  for (const kernel of KERNELS)
    it(`scores by node name, ANDed with the term's labels (${kernel})`, () => {
      const nodes = [
        nodeOf('node1', { labels: { foo: 'bar' } }),
        nodeOf('node2', { labels: { foo: 'bar' } }),
        nodeOf('node3'),
      ];
      const r = new PluginRunner({ plugin: 'NodeAffinity', nodes, kernel }).run(pod);
      expect(r.preScore).toEqual(ok);
      expect(r.score).toEqual({ node1: 2, node2: 4, node3: 0 });
      expect(r.normalizedScore).toEqual({ node1: 50, node2: 100, node3: 0 });
    });
});

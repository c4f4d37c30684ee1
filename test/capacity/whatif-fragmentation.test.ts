import { describe, it, expect } from 'vitest';
import type { Node, Pod } from '../../src/api/types.js';
import { applyWhatIfs, parseWhatIf, WhatIfError } from '../../src/capacity/whatif.js';
import { fragmentation } from '../../src/capacity/fragmentation.js';
import { makeNode, makePod } from '../helpers/builders.js';

function node(name: string, zone: string, cpu: string, memory: string, pods = '110'): Node {
  return makeNode(name)
    .labels({ 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone })
    .allocatable({ cpu, memory, pods })
    .obj();
}

function pod(
  name: string,
  cpu: string,
  memory: string,
  nodeName?: string,
  extra: Partial<Pod['spec']> = {},
  owner?: string,
): Pod {
  const b = makePod(name)
    .uid(undefined)
    .containers({ name: 'c', resources: { requests: { cpu, memory } } })
    .spec({ nodeName, ...extra })
    .status({ phase: nodeName ? 'Running' : 'Pending' });
  if (owner) b.meta({ ownerReferences: [{ apiVersion: 'apps/v1', kind: owner, name: 'o', uid: 'u' }] });
  return b.obj();
}

const cluster = {
  nodes: [node('a1', 'a', '4', '16Gi'), node('a2', 'a', '4', '16Gi'), node('b1', 'b', '8', '32Gi')],
  pods: [
    pod('web-1', '500m', '1Gi', 'a1', { priority: 10 }, 'ReplicaSet'),
    pod('ds-1', '100m', '100Mi', 'a1', {}, 'DaemonSet'),
    pod('db-1', '2', '8Gi', 'a2', { priority: 1000 }, 'StatefulSet'),
    pod('batch-done', '1', '1Gi', 'a2'),
    pod('big', '6', '4Gi', 'b1'),
  ],
};
cluster.pods[3].status = { phase: 'Succeeded' };

describe('what-if parsing', () => {
  it.each([
    ['remove-nodes=a1, a2', { kind: 'remove-nodes', names: ['a1', 'a2'] }],
    ['lose-zone=us-east-1a', { kind: 'lose-zone', zone: 'us-east-1a' }],
    ['cordon=a1', { kind: 'cordon', names: ['a1'] }],
    ['add-nodes=3:b1', { kind: 'add-nodes', count: 3, template: 'b1', zone: undefined }],
    ['add-nodes=2:b1@c', { kind: 'add-nodes', count: 2, template: 'b1', zone: 'c' }],
  ])('%s', (spec, want) => expect(parseWhatIf(spec)).toEqual(want));

  it.each(['zone-a', 'explode=a1', 'add-nodes=0:b1', 'add-nodes=b1'])(
    'rejects %s with a message that names it',
    (spec) => {
      expect(() => parseWhatIf(spec)).toThrow(WhatIfError);
      expect(() => parseWhatIf(spec)).toThrow(spec);
    },
  );
});

describe('applying what-ifs', () => {
  it('losing a zone displaces its pods except DaemonSet and finished ones, highest priority first', () => {
    const r = applyWhatIfs(cluster, [parseWhatIf('lose-zone=a')]);
    expect(r.nodes.map((n) => n.metadata.name)).toEqual(['b1']);
    expect(r.displaced.map((p) => p.metadata.name)).toEqual(['db-1', 'web-1']);
    expect(r.displaced.every((p) => p.spec.nodeName === undefined && p.status?.phase === 'Pending')).toBe(
      true,
    );
    expect(r.pods.map((p) => p.metadata.name)).toEqual(['big']);
    expect(r.applied[0]).toBe('lost zone a: 2 node(s) removed, 2 pod(s) displaced');
    // the input snapshot is untouched
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.pods[0].spec.nodeName).toBe('a1');
  });

  it('adds clones of a template with fresh names and hostname labels, optionally in another zone', () => {
    const r = applyWhatIfs(cluster, [parseWhatIf('add-nodes=2:b1@c')]);
    const added = r.nodes.slice(3);
    expect(added.map((n) => n.metadata.name)).toEqual(['b1-whatif-1', 'b1-whatif-2']);
    expect(added[0].metadata.labels!['kubernetes.io/hostname']).toBe('b1-whatif-1');
    expect(added[0].metadata.labels!['topology.kubernetes.io/zone']).toBe('c');
    expect(added[0].status!.allocatable).toEqual({ cpu: '8', memory: '32Gi', pods: '110' });
  });

  it('leaves its input untouched: unchanged objects are shared, a cordoned node is a new object', () => {
    const before = JSON.stringify(cluster);
    const r = applyWhatIfs(cluster, [
      parseWhatIf('cordon=a2'),
      parseWhatIf('remove-nodes=a1'),
      parseWhatIf('add-nodes=1:a2'),
    ]);
    expect(JSON.stringify(cluster)).toBe(before);
    expect(cluster.nodes[1].spec?.unschedulable).toBeUndefined();
    expect(r.nodes[0]).not.toBe(cluster.nodes[1]); // a2, cordoned: a copy
    expect(r.nodes[0].spec!.unschedulable).toBe(true);
    expect(r.nodes[1]).toBe(cluster.nodes[2]); // b1 unchanged: shared
    expect(r.nodes[2].spec!.unschedulable).toBe(false); // a clone of the cordoned template is schedulable
    expect(r.pods.every((p) => cluster.pods.includes(p))).toBe(true);
  });

  it('cordons nodes and names unknown nodes and zones in its errors', () => {
    expect(applyWhatIfs(cluster, [parseWhatIf('cordon=a2')]).nodes[1].spec!.unschedulable).toBe(true);
    expect(() => applyWhatIfs(cluster, [parseWhatIf('remove-nodes=zz')])).toThrow('no node named "zz"');
    expect(() => applyWhatIfs(cluster, [parseWhatIf('lose-zone=q')])).toThrow(
      'no node in zone "q" (zones: a, b)',
    );
    expect(() => applyWhatIfs(cluster, [parseWhatIf('add-nodes=1:nope')])).toThrow('template node "nope"');
  });
});

describe('fragmentation', () => {
  it('counts fits per node and the stranded remainder (hand-checked)', () => {
    // a1: free 3400m / 16Gi-1124Mi; a2: 2 CPU / 8Gi (batch-done finished, does not count); b1: 2 CPU / 28Gi
    const shape = pod('shape', '1500m', '6Gi');
    const f = fragmentation(cluster.nodes, cluster.pods, shape);
    const byNode = Object.fromEntries(f.nodes.map((n) => [n.node, n]));
    expect(byNode.a1.fits).toBe(2); // min(⌊3400/1500⌋=2, ⌊(16384-1124)Mi/6Gi⌋=2)
    expect(byNode.a1.stranded.cpu).toBe(400);
    expect(byNode.a2.fits).toBe(1); // min(⌊2000/1500⌋=1, ⌊8Gi/6Gi⌋=1)
    expect(byNode.a2.stranded.cpu).toBe(500);
    expect(byNode.a2.stranded.memory).toBe(2 * 2 ** 30);
    expect(byNode.b1.fits).toBe(1); // cpu-bound: ⌊2000/1500⌋
    expect(byNode.b1.limitedBy).toBe('cpu');
    expect(f.fitsByResources).toBe(4);
    expect(f.totals.cpu.free).toBe(3400 + 2000 + 2000);
    expect(f.totals.cpu.stranded).toBe(400 + 500 + 500);
  });

  it('a node with room too small for the shape is counted as stranded room', () => {
    const f = fragmentation(cluster.nodes, cluster.pods, pod('huge', '3', '1Gi'));
    expect(f.nodes.map((n) => n.fits)).toEqual([1, 0, 0]);
    expect(f.nodesWithStrandedRoom).toBe(2);
  });
});

#!/usr/bin/env node
// One plugin against given nodes and pods, the way upstream's plugin tests run a plugin: PreFilter,
// Filter on every node, PreScore, Score on every node, NormalizeScore — each Status as data.
//   node examples/library/plugin-runner.mjs
import { PluginRunner, SchedulerCore } from 'kubesim/scheduler';

const node = (name, labels) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
});
const nodes = [node('a', { zone: 'z1', disk: 'ssd' }), node('b', { zone: 'z2' })];
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    containers: [{ name: 'app', image: 'nginx' }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1', 'z2'] }] }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 5, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } },
        ],
      },
    },
  },
};

const result = new PluginRunner({ plugin: 'NodeAffinity', nodes }).run(pod);
console.log('filter', JSON.stringify(result.filter));
console.log('score', JSON.stringify(result.score), 'normalized', JSON.stringify(result.normalizedScore));

// the whole profile's view of the same pod: every filter and score per node
const core = new SchedulerCore({ nodes, kernel: 'js' });
const why = core.explain(pod);
console.log('chosen', why.chosen, why.nodes.map((n) => `${n.name}=${n.total}`).join(' '));

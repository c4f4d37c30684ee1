// KubeSchedulerConfiguration: v1 defaults, multiPoint expansion, enable/disable/override, strict
// field checking and errors naming the field; profiles built into Frameworks.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ConfigError,
  defaultSchedulerConfig,
  expandProfilePlugins,
  parseSchedulerConfig,
} from '../../src/scheduler/config.js';
import { SchedulerCore } from '../../src/scheduler/scheduler.js';
import { inTreeRegistry } from '../../src/scheduler/plugins/registry.js';

const reg = inTreeRegistry();
const impl = (n: string, p: string) => {
  const e = reg.get(n);
  return e ? e.points.includes(p as never) : undefined;
};
const cfg = (y: string) => parseSchedulerConfig(parse(y), 'sched.yaml');

describe('KubeSchedulerConfiguration', () => {
  it('v1 defaults: filter order and score weights as kube-scheduler', () => {
    const pts = expandProfilePlugins(defaultSchedulerConfig().profiles[0], impl);
    expect(pts.filter.map((p) => p.name)).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeRestrictions',
      'NodeVolumeLimits',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
    ]);
    expect(pts.score.map((p) => `${p.name}:${p.weight}`)).toEqual([
      'TaintToleration:3',
      'NodeAffinity:2',
      'NodeResourcesFit:1',
      'VolumeBinding:1',
      'PodTopologySpread:2',
      'InterPodAffinity:2',
      'NodeResourcesBalancedAllocation:1',
      'ImageLocality:1',
    ]);
    expect(pts.queueSort.map((p) => p.name)).toEqual(['PrioritySort']);
    expect(pts.postFilter.map((p) => p.name)).toEqual(['DefaultPreemption']);
    expect(pts.bind.map((p) => p.name)).toEqual(['DefaultBinder']);
    const core = new SchedulerCore();
    const fwk = core.frameworks.get('default-scheduler')!;
    // volume plugins are accepted but not modelled: they do not appear in the framework
    expect(fwk.plugins.filter.map((p) => p.name)).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'PodTopologySpread',
      'InterPodAffinity',
    ]);
    expect(fwk.plugins.score.map((s) => `${s.plugin.name}:${s.weight}`)).toEqual([
      'TaintToleration:3',
      'NodeAffinity:2',
      'NodeResourcesFit:1',
      'PodTopologySpread:2',
      'InterPodAffinity:2',
      'NodeResourcesBalancedAllocation:1',
      'ImageLocality:1',
    ]);
  });

  it('disable, re-weight, and "*" per extension point', () => {
    const c = cfg(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 5}]
      disabled: [{name: ImageLocality}, {name: PodTopologySpread}]
- schedulerName: no-score
  plugins:
    score: {disabled: [{name: "*"}]}
    multiPoint: {disabled: [{name: InterPodAffinity}]}
`);
    const a = expandProfilePlugins(c.profiles[0], impl);
    expect(a.score.map((p) => `${p.name}:${p.weight}`)).toEqual([
      'NodeResourcesFit:5',
      'TaintToleration:3',
      'NodeAffinity:2',
      'VolumeBinding:1',
      'InterPodAffinity:2',
      'NodeResourcesBalancedAllocation:1',
    ]);
    const b = expandProfilePlugins(c.profiles[1], impl);
    expect(b.score).toEqual([]);
    expect(b.filter.map((p) => p.name)).not.toContain('InterPodAffinity');
    const core = new SchedulerCore({ config: c });
    expect([...core.frameworks.keys()]).toEqual(['default-scheduler', 'no-score']);
  });

  it('errors name the file and the field', () => {
    const base = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
    expect(() => cfg(base + 'profiles:\n- schedulerName: x\n  plugin: {}\n')).toThrow(
      'sched.yaml: strict decoding error: unknown field "profiles[0].plugin"',
    );
    expect(() => cfg(base + 'percentageOfNodesToScore: 101\n')).toThrow(
      'sched.yaml: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]',
    );
    expect(() =>
      cfg('apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n'),
    ).toThrow(/apiVersion: Unsupported value: "kubescheduler.config.k8s.io\/v1beta3"/);
    expect(() =>
      cfg(
        base +
          'profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {}, bogus: 1}\n',
      ),
    ).toThrow('unknown field "profiles[0].pluginConfig[0].args.bogus"');
    expect(() => cfg(base + 'profiles:\n- {}\n- {}\n')).toThrow(
      'profiles[1].schedulerName: Duplicate value: "default-scheduler"',
    );
    const unknown = cfg(
      base + 'profiles:\n- plugins:\n    score:\n      enabled: [{name: Nope, weight: 1}]\n',
    );
    expect(() => expandProfilePlugins(unknown.profiles[0], impl)).toThrow(
      'score plugin "Nope" does not exist',
    );
    const wrong = cfg(base + 'profiles:\n- plugins:\n    score:\n      enabled: [{name: NodePorts}]\n');
    expect(() => expandProfilePlugins(wrong.profiles[0], impl)).toThrow(
      'plugin "NodePorts" does not extend score plugin',
    );
    expect(
      () =>
        new SchedulerCore({
          config: cfg(
            base +
              'profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 500}\n',
          ),
        }),
    ).toThrow(/plugin "InterPodAffinity": InterPodAffinityArgs: hardPodAffinityWeight: Invalid value: 500/);
  });

  it('pluginConfig reaches the kernels: MostAllocated packs, RequestedToCapacityRatio shape is validated', () => {
    const base = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
    const most = cfg(
      base +
        'profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}]}}\n',
    );
    expect(() => new SchedulerCore({ config: most })).not.toThrow();
    const bad = cfg(
      base +
        'profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 0, score: 11}]}}}\n',
    );
    expect(() =>
      new SchedulerCore({ config: bad }).schedule({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [] },
      }),
    ).toThrow(ConfigError);
  });
});

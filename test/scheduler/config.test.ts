// KubeSchedulerConfiguration: v1 defaults, multiPoint expansion, enable/disable/override, strict
// field checking and errors naming the field; profiles built into Frameworks.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
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
      'DynamicResources',
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
    expect(pts.postFilter.map((p) => p.name)).toEqual(['DynamicResources', 'DefaultPreemption']);
    expect(pts.bind.map((p) => p.name)).toEqual(['DefaultBinder']);
    const core = new SchedulerCore();
    const fwk = core.frameworks.get('default-scheduler')!;
    // the volume plugins are modelled: they appear in the framework at upstream's places
    expect(fwk.plugins.filter.map((p) => p.name)).toEqual([
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
      'DynamicResources',
    ]);
    expect(fwk.plugins.score.map((s) => `${s.plugin.name}:${s.weight}`)).toEqual([
      'TaintToleration:3',
      'NodeAffinity:2',
      'NodeResourcesFit:1',
      'VolumeBinding:1',
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
    expect(() =>
      cfg(
        base +
          'profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 500}\n',
      ),
    ).toThrow(
      'sched.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 500: not in valid range [0, 100]',
    );
  });

  it('pluginConfig reaches the kernels: MostAllocated packs, RequestedToCapacityRatio shape is validated', () => {
    const base = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
    const most = cfg(
      base +
        'profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}]}}\n',
    );
    expect(() => new SchedulerCore({ config: most })).not.toThrow();
    expect(() =>
      cfg(
        base +
          'profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 0, score: 11}]}}}\n',
      ),
    ).toThrow(
      // validateFunctionShape under scoringStrategy.shape, upstream's path
      'sched.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]',
    );
  });

  // pkg/scheduler/apis/config/validation (v1.34) ValidateNodeResourcesFitArgs,
  // ValidateNodeResourcesBalancedAllocationArgs, ValidateDefaultPreemptionArgs,
  // ValidatePodTopologySpreadArgs: raised when the file is parsed, with the full field path of the
  // plugin whose args hold the bad value (the scheduler is never built)
  const base = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
  const args = (name: string, a: string) =>
    `${base}profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {}\n  - name: ${name}\n    args: ${a}\n`;
  const rows: [string, string, string, string][] = [
    [
      'a scoringStrategy weight is blamed on NodeResourcesFit',
      'NodeResourcesFit',
      '{scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 200}]}}',
      'sched.yaml: profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight: Invalid value: 200: resource weight of cpu not in valid range (0, 100]',
    ],
    [
      'an unknown scoring strategy type',
      'NodeResourcesFit',
      '{scoringStrategy: {type: Spread}}',
      'sched.yaml: profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: "Spread": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    ],
    [
      'unsorted shape points',
      'NodeResourcesFit',
      '{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 50, score: 5}, {utilization: 10, score: 1}]}}}',
      'sched.yaml: profiles[0].pluginConfig[1].args.scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order',
    ],
    [
      'BalancedAllocation weights must be 1, names unique',
      'NodeResourcesBalancedAllocation',
      '{resources: [{name: cpu, weight: 2}, {name: cpu, weight: 1}]}',
      'sched.yaml: [profiles[0].pluginConfig[1].args.resources[0].weight: Invalid value: 2: must be 1, profiles[0].pluginConfig[1].args.resources[1].name: Duplicate value: "cpu"]',
    ],
    [
      'DefaultPreemption both zero',
      'DefaultPreemption',
      '{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}',
      'sched.yaml: [profiles[0].pluginConfig[1].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, profiles[0].pluginConfig[1].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]',
    ],
    [
      'PodTopologySpread default constraints',
      'PodTopologySpread',
      '{defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]}',
      'sched.yaml: [profiles[0].pluginConfig[1].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), profiles[0].pluginConfig[1].args.defaultConstraints[1]: Duplicate value: "{zone, ScheduleAnyway}"]',
    ],
  ];
  for (const [name, plugin, a, want] of rows)
    it(`args: ${name}`, () => expect(() => cfg(args(plugin, a))).toThrow(want));
  it('args within range parse (a weight of 0 defaults to 1, as v1 SetDefaults_NodeResourcesFitArgs)', () =>
    expect(() =>
      cfg(
        args(
          'NodeResourcesFit',
          '{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 0}]}}',
        ),
      ),
    ).not.toThrow());
});

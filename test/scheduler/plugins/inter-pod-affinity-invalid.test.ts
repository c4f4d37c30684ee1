// InterPodAffinity and label-selector values that are not valid label values, through the public
// PluginRunner on both kernels: Kubernetes v1.34 interpodaffinity filtering_test.go
// TestRequiredAffinitySingleNode ("fails PreFilter with an invalid affinity label syntax" rows) and
// scoring_test.go TestPreferredAffinity ("invalid Affinity fails PreScore" rows), transcribed as data.
// framework.NewPodInfo names the term list that failed; PreFilter prefixes "parsing pod: ",
// PreScore answers Error "failed to parse pod: ".
import { describe, expect, it } from 'vitest';
import type { Affinity, PodAffinityTerm } from '../../../src/api/types.js';
import { PluginRunner } from '../../../src/scheduler/index.js';
import { nodeOf, podOf } from '../../helpers/builders.js';

const KERNELS = ['js', 'wasm'] as const;
const BAD = '{{.bad-value.}}';
const INVALID = (list: string, key: string) =>
  `${list}: values[0][${key}]: Invalid value: "${BAD}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`;

const termIn = (key: string, topologyKey: string, values: string[]): PodAffinityTerm => ({
  labelSelector: { matchExpressions: [{ key, operator: 'In', values }] },
  topologyKey,
});
const nodes = () => [
  nodeOf('node1', { labels: { region: 'China' } }),
  nodeOf('node2', { labels: { region: 'China' } }),
];
const run = (affinity: Affinity, kernel: 'js' | 'wasm') =>
  new PluginRunner({ plugin: 'InterPodAffinity', nodes: nodes(), kernel }).run(
    podOf({ labels: { security: 'S1' }, affinity }),
  );

describe('InterPodAffinity PreFilter: invalid label values (TestRequiredAffinitySingleNode)', () => {
  const rows: [string, PodAffinityTerm[]][] = [
    [
      'PodAffinity fails PreFilter with an invalid affinity label syntax',
      [termIn('service', 'region', [BAD]), termIn('service', 'node', ['antivirusscan', 'value2'])],
    ],
    [
      'PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax',
      [termIn('service', 'region', ['foo']), termIn('service', 'node', [BAD])],
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, terms] of rows)
      it(`${name} (${kernel})`, () => {
        const r = run({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } }, kernel);
        expect(r.preFilter).toEqual({
          code: 'UnschedulableAndUnresolvable',
          reasons: [`parsing pod: ${INVALID('requiredAffinityTerms', 'service')}`],
        });
        expect(r.filter).toBeUndefined();
      });
});

describe('InterPodAffinity PreScore: invalid label values (TestPreferredAffinity)', () => {
  const rows: [string, Affinity, string][] = [
    [
      'invalid Affinity fails PreScore',
      {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 8, podAffinityTerm: termIn('security', 'region', [BAD]) },
          ],
        },
      },
      'preferredAffinityTerms',
    ],
    [
      'invalid AntiAffinity fails PreScore',
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 5, podAffinityTerm: termIn('security', 'region', [BAD]) },
          ],
        },
      },
      'preferredAntiAffinityTerms',
    ],
  ];
  for (const kernel of KERNELS)
    for (const [name, affinity, list] of rows)
      it(`${name} (${kernel})`, () => {
        const r = run(affinity, kernel);
        // upstream's row asserts the code and that the message holds `Invalid value: "{{.bad-value.}}"`
        expect(r.preScore).toEqual({
          code: 'Error',
          reasons: [`failed to parse pod: ${INVALID(list, 'security')}`],
        });
        expect(r.score).toBeUndefined();
        // the same parse fails PreFilter first in a real cycle (NewPodInfo parses every list)
        expect(r.preFilter?.reasons).toEqual([`parsing pod: ${INVALID(list, 'security')}`]);
      });
});

describe('framework.NewPodInfo aggregates one error per term list', () => {
  it('two failing lists print as [a, b]', () => {
    const r = run(
      {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [termIn('service', 'region', [BAD])] },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 5, podAffinityTerm: termIn('security', 'region', [BAD]) },
          ],
        },
      },
      'js',
    );
    expect(r.preFilter?.reasons).toEqual([
      `parsing pod: [${INVALID('requiredAffinityTerms', 'service')}, ${INVALID('preferredAntiAffinityTerms', 'security')}]`,
    ]);
  });
});

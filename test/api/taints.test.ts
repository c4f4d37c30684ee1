// Toleration matching, table-tested with upstream's own cases (Kubernetes v1.32):
// staging/src/k8s.io/api/core/v1/toleration_test.go TestTolerationToleratesTaint and
// pkg/apis/core/v1/helper/helpers_test.go TestTolerationsTolerateTaintsWithFilter.
import { describe, expect, it } from 'vitest';
import {
  doNotScheduleTaint,
  findMatchingUntoleratedTaint,
  toleratesTaint,
  tolerationsTolerateTaint,
} from '../../src/api/taints.js';
import type { Taint, Toleration } from '../../src/api/types.js';
import { minTolerationMs } from '../../src/controllers/taint-eviction.js';

describe('Toleration.ToleratesTaint (toleration_test.go)', () => {
  const cases: Array<[string, Toleration, Taint, boolean]> = [
    [
      'same key and effect, operator Exists, taint without value',
      { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key and effect, operator Exists, taint with a value',
      { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same effect, empty key and operator Exists matches every taint',
      { key: '', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key, effect and value, operator Equal',
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key and effect, different values, operator Equal',
      { key: 'foo', operator: 'Equal', value: 'value1', effect: 'NoSchedule' },
      { key: 'foo', value: 'value2', effect: 'NoSchedule' },
      false,
    ],
    [
      'same key and value, different effects, operator Equal',
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoExecute' },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, toleration, taint, want) => {
    expect(toleratesTaint(toleration, taint)).toBe(want);
  });

  // toleration.go's `default: return false`: an operator other than Equal/Exists (e.g. the Gt/Lt of
  // releases after v1.32) tolerates nothing, even where an Equal comparison would match.
  it('an unknown operator tolerates nothing', () => {
    const t = { key: 'foo', operator: 'Lt', value: 'bar', effect: 'NoExecute' } as unknown as Toleration;
    expect(toleratesTaint(t, { key: 'foo', value: 'bar', effect: 'NoExecute' })).toBe(false);
  });

  it('no operator means Equal', () => {
    expect(
      toleratesTaint({ key: 'foo', value: 'bar' }, { key: 'foo', value: 'bar', effect: 'NoExecute' }),
    ).toBe(true);
    expect(
      toleratesTaint({ key: 'foo', value: 'baz' }, { key: 'foo', value: 'bar', effect: 'NoExecute' }),
    ).toBe(false);
  });
});

describe('TolerationsTolerateTaintsWithFilter (helpers_test.go)', () => {
  // every filtered taint tolerated ⇔ FindMatchingUntoleratedTaint finds none
  const all = () => true;
  const cases: Array<[string, Toleration[], Taint[], ((t: Taint) => boolean) | undefined, boolean]> = [
    ['empty tolerations tolerate empty taints', [], [], all, true],
    [
      'non-empty tolerations tolerate empty taints',
      [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      [],
      all,
      true,
    ],
    [
      'tolerations match all taints',
      [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'foo', effect: 'NoSchedule' }],
      all,
      true,
    ],
    [
      "tolerations don't match taints, but no taints apply to the filter",
      [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'bar', effect: 'NoSchedule' }],
      () => false,
      true,
    ],
    [
      "no filter: all taints apply, tolerations don't match",
      [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'bar', effect: 'NoSchedule' }],
      undefined,
      false,
    ],
    [
      'tolerations match the NoExecute taints the filter keeps',
      [{ key: 'foo', operator: 'Exists', effect: 'NoExecute' }],
      [
        { key: 'foo', effect: 'NoExecute' },
        { key: 'bar', effect: 'NoSchedule' },
      ],
      (t) => t.effect === 'NoExecute',
      true,
    ],
  ];
  it.each(cases)('%s', (_name, tolerations, taints, filter, want) => {
    expect(findMatchingUntoleratedTaint(taints, tolerations, filter) === undefined).toBe(want);
    if (!filter || filter === all)
      expect(taints.every((t) => tolerationsTolerateTaint(tolerations, t))).toBe(want);
  });

  it('the scheduler filter skips PreferNoSchedule and names the first untolerated taint', () => {
    const taints: Taint[] = [
      { key: 'a', effect: 'PreferNoSchedule' },
      { key: 'b', value: '1', effect: 'NoExecute' },
      { key: 'c', effect: 'NoSchedule' },
    ];
    expect(findMatchingUntoleratedTaint(taints, [], doNotScheduleTaint)).toEqual(taints[1]);
  });
});

describe('taint eviction uses the same rule', () => {
  it('a toleration with an unknown operator does not keep a pod on a NoExecute node', () => {
    const taints: Taint[] = [{ key: 'foo', value: 'bar', effect: 'NoExecute' }];
    const odd = { key: 'foo', operator: 'Lt', value: 'bar', effect: 'NoExecute' } as unknown as Toleration;
    expect(minTolerationMs(taints, [odd])).toBe(0);
    expect(
      minTolerationMs(taints, [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute' }]),
    ).toBe(-1);
  });
});

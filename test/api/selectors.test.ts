import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../src/api/field-selector.js';
import {
  labelSelectorAsSelector,
  matchesSet,
  parseLabelSelector,
  Selector,
} from '../../src/api/label-selector.js';

describe('label selectors (labels.Parse, upstream selector_test.go cases)', () => {
  // TestSelectorParse good strings: re-printed without spaces
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5'])(
    'parses %j',
    (s) => {
      expect(parseLabelSelector(s).toString()).toBe(s.replace(/ /g, ''));
    },
  );
  it.each(['x in (a,b,c)', 'x notin (a,b,c)', 'x in (a,b),y notin (c,d)'])('parses set-based %j', (s) => {
    expect(parseLabelSelector(s).toString()).toBe(s);
  });
  it.each([
    'x=a||y=b',
    'x==a==b',
    '!x=a',
    'x<a',
    'x in a',
    'x in (a',
    'x in (a,b',
    'x=(a,b)',
    'x in in',
    'x,',
    ',x',
    'x=a,,y=b',
  ])('rejects %j with 400', (s) => {
    expect(() => parseLabelSelector(s)).toThrow();
    try {
      parseLabelSelector(s);
    } catch (e: any) {
      expect(e.code).toBe(400);
    }
  });

  // TestSelectorMatches / TestSetMatches
  const matches: Array<[string, Record<string, string>, boolean]> = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x in (a,)', { x: '' }, true],
  ];
  it.each(matches)('%j matches %j → %s', (sel, labels, want) => {
    expect(parseLabelSelector(sel).matches(labels)).toBe(want);
  });
});

describe('LabelSelector objects (metav1.LabelSelectorAsSelector, helpers_test.go cases)', () => {
  const matchLabels = { foo: 'bar' };
  const matchExpressions = [{ key: 'baz', operator: 'In' as const, values: ['qux', 'norf'] }];
  // TestLabelSelectorAsSelector: the selector's String() is compared
  it.each([
    [{ matchLabels }, 'foo=bar'],
    [{ matchExpressions }, 'baz in (norf,qux)'],
    [{ matchLabels, matchExpressions }, 'baz in (norf,qux),foo=bar'],
  ])('%j → %s', (sel, want) => {
    expect(labelSelectorAsSelector(sel).toString()).toBe(parseLabelSelector(want).toString());
  });
  it('nil selects nothing, {} everything', () => {
    expect(labelSelectorAsSelector(undefined)).toBe(Selector.NOTHING);
    expect(labelSelectorAsSelector(undefined).matches({})).toBe(false);
    expect(labelSelectorAsSelector({})).toBe(Selector.EVERYTHING);
    expect(labelSelectorAsSelector({}).matches(undefined)).toBe(true);
  });
  it('rejects values with Exists, no values with In, and unknown operators (labels.NewRequirement)', () => {
    expect(() =>
      labelSelectorAsSelector({
        matchExpressions: [{ key: 'baz', operator: 'Exists', values: ['qux', 'norf'] }],
      }),
    ).toThrow(
      'values: Invalid value: []string{"qux", "norf"}: values set must be empty for exists and does not exist',
    );
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'baz', operator: 'In', values: [] }] }),
    ).toThrow("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    expect(() =>
      labelSelectorAsSelector({ matchExpressions: [{ key: 'baz', operator: 'Near' as 'In' }] }),
    ).toThrow('"Near" is not a valid label selector operator');
  });
  it('matches as the parsed string form does', () => {
    const sel = labelSelectorAsSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'gpu', operator: 'DoesNotExist' },
      ],
    });
    const parsed = parseLabelSelector('app=web,tier notin (db),!gpu');
    for (const labels of [
      { app: 'web' },
      { app: 'web', tier: 'db' },
      { app: 'web', gpu: '1' },
      { tier: 'x' },
      {},
    ])
      expect(sel.matches(labels)).toBe(parsed.matches(labels));
  });
  it('SelectorFromSet: every key of the set carries its value', () => {
    expect(matchesSet({ app: 'web' }, { app: 'web', x: 'y' })).toBe(true);
    expect(matchesSet({ app: 'web' }, { app: 'db' })).toBe(false);
    expect(matchesSet({ app: 'web' }, undefined)).toBe(false);
    expect(matchesSet({}, undefined)).toBe(true);
  });
});

describe('field selectors (fields.ParseSelector)', () => {
  it('parses, unescapes and matches', () => {
    const s = parseFieldSelector('metadata.name=a\\=\\=b,spec.nodeName!=n1', 'pods');
    expect(s.requirements).toEqual([
      { field: 'metadata.name', op: '=', value: 'a==b' },
      { field: 'spec.nodeName', op: '!=', value: 'n1' },
    ]);
    const pod = (name: string, node?: string, phase?: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { nodeName: node },
        status: { phase },
      }) as any;
    expect(s.matches(pod('a==b', 'n2'))).toBe(true);
    expect(s.matches(pod('a==b', 'n1'))).toBe(false);
    expect(parseFieldSelector('status.phase==Running', 'pods').matches(pod('x', undefined, 'Running'))).toBe(
      true,
    );
    expect(parseFieldSelector('spec.nodeName=', 'pods').matches(pod('x'))).toBe(true);
    expect(parseFieldSelector('spec.nodeName=n1', 'pods').exact('spec.nodeName')).toBe('n1');
    expect(
      parseFieldSelector('spec.unschedulable=true', 'nodes').matches({
        kind: 'Node',
        metadata: {},
        spec: { unschedulable: true },
      } as any),
    ).toBe(true);
  });
  it.each([
    ['x=a||y=b', 'invalid field selector: unescaped character in value: ='],
    ['metadata.name==a==b', 'invalid field selector: unescaped character in value: ='],
    [
      'metadata.name=a,b',
      "invalid field selector: invalid selector: 'metadata.name=a,b'; can't understand 'b'",
    ],
    ['x in (a)', "invalid field selector: invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['metadata.name=a\\b', 'invalid field selector: invalid escape sequence: \\b'],
    ['spec.foo=x', 'field label not supported: spec.foo'],
    ['spec.nodeName=x', 'field label not supported: spec.nodeName'],
  ])('rejects %j', (s, msg) => {
    expect(() => parseFieldSelector(s, s.startsWith('spec.nodeName') ? 'services' : 'pods')).toThrow(msg);
  });
});

// The merge order of server-side apply's list maps against structured-merge-diff's own table:
// typed/merge_test.go "associative list" (a list keyed by key and id), each triplet live → applied →
// result transcribed as data and run through apply-listmaps.ts mergeApplied. Upstream's row whose
// applied list is null is left out: kubesim's apply removes a field set to null.
import { describe, expect, it } from 'vitest';
import { mergeApplied } from '../../src/server/apply-listmaps.js';

const MAPS = new Map([['list', ['key', 'id']]]);

// [live, applied, merged], as upstream writes them
const TRIPLETS: [string, string, string][] = [
  [
    '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
    '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
    '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
  ],
  [
    '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
    '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
    '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
  ],
  [
    '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
    '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
    '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}',
  ],
  [
    '{"list":[{"key":"b","id":2}]}',
    '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
    '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
  ],
  [
    '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
    '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}',
    '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}',
  ],
  [
    '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
    '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}',
    '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}',
  ],
  ['{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
  ['{"atomicList":["a","a","a"]}', '{"atomicList":["a","a"]}', '{"atomicList":["a","a"]}'],
  [
    '{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}',
    '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
    '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
  ],
  [
    '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
    '{"list":[]}',
    '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
  ],
  [
    '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
    '{}',
    '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
  ],
];

describe('server-side apply merges list maps in structured-merge-diff order (merge_test.go)', () => {
  it.each(TRIPLETS.map((t, i) => [i, ...t]))('triplet %i: %s + %s', (_i, live, applied, merged) => {
    expect(mergeApplied(JSON.parse(live), JSON.parse(applied), MAPS)).toEqual(JSON.parse(merged));
  });
});

import { describe, it, expect } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import { Informer } from '../../src/client/informer.js';
import type { Pod } from '../../src/api/types.js';
import { FakeApi, settle } from './fake-api.js';
import { makePod } from '../helpers/builders.js';

const pod = (name: string, node = ''): Pod => {
  const b = makePod(name).uid(undefined).label('app', 'x').containers({ name: 'c' });
  return (node ? b.node(node) : b).obj();
};

describe('Informer', () => {
  it('lists, then watches; calls handlers; keeps indexes', async () => {
    const api = new FakeApi();
    await api.create('pods', pod('a', 'n1'));
    const clock = new ManualClock(0);
    const inf = new Informer<Pod>(api, 'pods', {
      clock,
      indexers: { node: (p) => (p.spec.nodeName ? [p.spec.nodeName] : []) },
    });
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (p) => seen.push(`add ${p.metadata.name}`),
      onUpdate: (o, n) => seen.push(`update ${n.metadata.name} ${o.spec.nodeName ?? '-'}→${n.spec.nodeName}`),
      onDelete: (p) => seen.push(`delete ${p.metadata.name}`),
    });
    await inf.start();
    expect(inf.hasSynced).toBe(true);
    await api.create('pods', pod('b'));
    const b = await api.get<Pod>('pods', 'default', 'b');
    b.spec.nodeName = 'n2';
    await api.update('pods', b);
    await api.delete('pods', 'default', 'a');
    await settle();
    expect(seen).toEqual(['add a', 'add b', 'update b -→n2', 'delete a']);
    expect(inf.byIndex('node', 'n2').map((p) => p.metadata.name)).toEqual(['b']);
    expect(inf.byIndex('node', 'n1')).toEqual([]);
    expect(inf.list('default').length).toBe(1);
    expect(inf.get('default', 'b')?.spec.nodeName).toBe('n2');
    inf.stop();
  });

  it('relists on 410 Gone and announces what the broken watch missed', async () => {
    const api = new FakeApi();
    await api.create('pods', pod('a'));
    await api.create('pods', pod('b'));
    const clock = new ManualClock(0);
    const inf = new Informer<Pod>(api, 'pods', { clock });
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (p) => seen.push(`add ${p.metadata.name}`),
      onDelete: (p) => seen.push(`delete ${p.metadata.name}`),
    });
    await inf.start();
    // the watch breaks; meanwhile a is deleted and c created without the informer seeing it
    api.compactAndExpireWatches();
    api.silentDelete('pods', 'default', 'a');
    await api.create('pods', pod('c'));
    await settle();
    await settle();
    expect(inf.relists).toBe(1);
    expect(seen.slice(0, 2)).toEqual(['add a', 'add b']);
    expect(new Set(seen.slice(2))).toEqual(new Set(['add c', 'delete a']));
    expect([...inf.keys()].sort()).toEqual(['default/b', 'default/c']);
    // and keeps watching after the relist
    await api.create('pods', pod('d'));
    await settle();
    expect(inf.get('default', 'd')).toBeDefined();
    inf.stop();
  });

  it('resyncs every period as updates with the same object', async () => {
    const api = new FakeApi();
    await api.create('pods', pod('a'));
    const clock = new ManualClock(0);
    const inf = new Informer<Pod>(api, 'pods', { clock, resyncPeriodMs: 30_000 });
    let resyncs = 0;
    inf.addEventHandler({
      onUpdate: (o, n) => {
        if (o === n) resyncs++;
      },
    });
    await inf.start();
    clock.advance(95_000);
    expect(resyncs).toBe(3);
    inf.stop();
  });
});

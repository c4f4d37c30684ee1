// The watch cache (src/server/watch-cache.ts) differentially: two HTTP servers over ONE ApiServer,
// one serving watches through the cache (one store watch per resource), one with a store watch per
// watcher (the path every watch took before). The same watches — all namespaces, one namespace,
// label and field selectors whose objects start and stop matching, resume points in the middle of
// the history, resourceVersion "0", sendInitialEvents, protobuf and Table — opened on both while
// the same writes happen must read the same bytes. Then: bookmarks through the cache, and a watch
// from before the cache existed (older than its window) still replayed from the store's history.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiServer } from '../../src/api/apiserver.js';
import { type RunningServer, startHttpServer } from '../../src/server/http.js';
import { MemoryStore } from '../../src/store/memory/store.js';

interface Stream {
  text(): string;
  close(): void;
}

function open(base: string, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = request(`${base}${path}`, { headers }, (res) => {
      res.setEncoding('latin1');
      if (res.statusCode !== 200) {
        res.on('data', (c: string) => (text += c));
        res.on('end', () => reject(new Error(`${path}: ${res.statusCode} ${text}`)));
        return;
      }
      res.on('data', (c: string) => (text += c));
      resolve({ text: () => text, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(what: string, test: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lines = (s: Stream) =>
  s
    .text()
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          type: string;
          object: { kind: string; metadata: { name: string; namespace?: string; resourceVersion: string } };
        },
    );

describe('watch cache: the same bytes as a store watch per watcher', () => {
  let api: ApiServer;
  let cached: RunningServer;
  let direct: RunningServer;
  const cm = (ns: string, name: string, app: string, v: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { app } },
    data: { v },
  });
  const put = (ns: string, name: string, app: string, v: string) => api.update(cm(ns, name, app, v) as never);

  beforeAll(async () => {
    api = new ApiServer(new MemoryStore(), { seed: 7 });
    await api.bootstrapNamespaces();
    for (const name of ['a', 'b'])
      await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const watch = { minRequestTimeoutMs: 0, bookmarkEveryMs: 200 };
    cached = await startHttpServer({ api, version: 'test', watch });
    direct = await startHttpServer({ api, version: 'test', watch, watchCache: false });
  });
  afterAll(async () => {
    await cached?.close();
    await direct?.close();
  });

  it('every watch reads what a store watch of its own reads', async () => {
    const rv0 = (await api.list('configmaps', {})).metadata.resourceVersion!;
    const watches: [string, Record<string, string>?][] = [
      [`/api/v1/configmaps?watch=1&resourceVersion=${rv0}`],
      [`/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=${rv0}`],
      [`/api/v1/configmaps?watch=1&resourceVersion=${rv0}&labelSelector=app%3Dweb`],
      [`/api/v1/namespaces/b/configmaps?watch=1&resourceVersion=${rv0}&labelSelector=app%21%3Dweb`],
      [`/api/v1/configmaps?watch=1&resourceVersion=${rv0}&fieldSelector=metadata.name%3Dx`],
      [`/api/v1/watch/namespaces/a/configmaps/y?resourceVersion=${rv0}`],
      [
        `/api/v1/configmaps?watch=1&resourceVersion=${rv0}`,
        { Accept: 'application/vnd.kubernetes.protobuf;stream=watch' },
      ],
      [
        `/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=${rv0}`,
        { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
      ],
    ];
    const pairs: [Stream, Stream][] = [];
    const both = async (path: string, headers?: Record<string, string>) =>
      pairs.push([await open(cached.url, path, headers), await open(direct.url, path, headers)]);
    for (const [path, headers] of watches) await both(path, headers);

    // creates, label flips (web → db → web: leave and re-enter the selectors), deletes
    for (const ns of ['a', 'b'])
      for (const name of ['x', 'y', 'z']) await api.create(cm(ns, name, 'web', '1') as never);
    await put('a', 'x', 'db', '2');
    await put('b', 'y', 'db', '2');
    const mid = (await api.list('configmaps', {})).metadata.resourceVersion!;
    await both(`/api/v1/configmaps?watch=1&resourceVersion=${mid}`);
    await both(`/api/v1/configmaps?watch=1&resourceVersion=${mid}&labelSelector=app%3Dweb`);
    await both('/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=0');
    await both(
      '/api/v1/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=0&labelSelector=app%3Ddb',
    );
    await put('a', 'x', 'web', '3');
    await put('b', 'z', 'db', '3');
    await api.delete('configmaps', 'a', 'y', {});
    await api.delete('configmaps', 'b', 'y', {});
    await put('a', 'z', 'web', '4');

    // the periodic bookmarks of the sendInitialEvents watch fall at different points of the two
    // streams (their own timers): compare everything else, the initial-events-end bookmark included
    const comparable = (s: Stream) =>
      s
        .text()
        .split('\n')
        .filter((l) => !l.startsWith('{"type":"BOOKMARK"') || l.includes('initial-events-end'))
        .join('\n');
    const plain = (i: number) =>
      lines(pairs[i]![1]).map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`);
    // the reference streams are not trivial: selectors turn label flips into DELETED / ADDED
    const expected: [number, string[]][] = [
      [
        2,
        [
          'ADDED a/x',
          'ADDED a/y',
          'ADDED a/z',
          'ADDED b/x',
          'ADDED b/y',
          'ADDED b/z',
          'DELETED a/x',
          'DELETED b/y',
          'ADDED a/x',
          'DELETED b/z',
          'DELETED a/y',
          'MODIFIED a/z',
        ],
      ],
      [4, ['ADDED a/x', 'ADDED b/x', 'MODIFIED a/x', 'MODIFIED a/x']],
      [5, ['ADDED a/y', 'DELETED a/y']],
      [10, ['ADDED a/x', 'ADDED a/y', 'ADDED a/z', 'MODIFIED a/x', 'DELETED a/y', 'MODIFIED a/z']],
    ];
    // the last write reached the reference watchers (all in one flush), then both servers' bytes
    const complete = () => lines(pairs[0]![1]).length === 13;
    await until('the last write in the reference streams', complete).catch(() => {});
    await new Promise((r) => setTimeout(r, 200)); // the other sockets of that flush
    const settled = () => pairs.every(([c, d]) => comparable(c) === comparable(d));
    await until('both servers to have written the same', settled).catch(() => {});
    for (const [i, want] of expected) expect(plain(i)).toEqual(want);
    for (const [c, d] of pairs) expect(comparable(c)).toBe(comparable(d));
    for (const [c, d] of pairs) {
      c.close();
      d.close();
    }
  });

  it('bookmarks go through the one store watch to the watchers that allow them', async () => {
    const rv = (await api.list('configmaps', {})).metadata.resourceVersion!;
    const w = await open(
      cached.url,
      `/api/v1/configmaps?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`,
    );
    const quiet = await open(cached.url, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
    await api.create(cm('a', 'bm', 'web', '1') as never);
    await until('a bookmark', () => lines(w).some((e) => e.type === 'BOOKMARK'));
    const evs = lines(w);
    const added = evs.findIndex((e) => e.type === 'ADDED');
    const bookmark = evs.find((e) => e.type === 'BOOKMARK')!;
    expect(added).toBe(0);
    expect(bookmark.object.kind).toBe('ConfigMap');
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
    expect(lines(quiet).map((e) => e.type)).toEqual(['ADDED']);
    w.close();
    quiet.close();
  });

  it('a watch from before the cache existed replays the store history', async () => {
    const first = (await api.list('secrets', {})).metadata.resourceVersion!;
    await api.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'a' } });
    // the first secrets watch makes the cache, whose window starts now: `first` is older
    const now = await open(cached.url, '/api/v1/secrets?watch=1&resourceVersion=0');
    const old = await open(cached.url, `/api/v1/secrets?watch=1&resourceVersion=${first}`);
    await api.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2', namespace: 'a' } });
    const names = (s: Stream) => lines(s).map((e) => `${e.type} ${e.object.metadata.name}`);
    await until('both secrets', () => names(old).length === 2 && names(now).length === 2);
    expect(names(old)).toEqual(['ADDED s1', 'ADDED s2']);
    expect(names(now)).toEqual(['ADDED s1', 'ADDED s2']);
    now.close();
    old.close();
  });
});

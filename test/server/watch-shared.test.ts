// Watch fan-out with shared encodings and batched writes (src/server/watch.ts, watch-outbox.ts),
// over raw HTTP against `kubesim serve`: many watchers of each kind (plain JSON, Table, a custom
// resource at two served versions, HTTP/1.0) receive a burst of concurrent writes; each must read
// every event once, in resourceVersion order, in its own representation — Table column
// definitions only in its first row, a custom resource at the version it watches.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

interface Stream {
  text(): string;
  close(): void;
}

describe.skipIf(!builtCli)('watch fan-out: shared encodings, batched writes', () => {
  let srv: ServeProcess;

  const send = (method: string, path: string, body: object): Promise<number> =>
    new Promise((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = request(
        `${srv.url}${path}`,
        {
          method,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(data);
    });

  const open = (path: string, headers: Record<string, string> = {}): Promise<Stream> =>
    new Promise((resolve, reject) => {
      let text = '';
      const req = request(`${srv.url}${path}`, { headers }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        resolve({ text: () => text, close: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });

  /** an HTTP/1.0 watch: no chunked framing, the body runs until the connection closes */
  const open10 = (path: string): Promise<Stream> =>
    new Promise((resolve, reject) => {
      const url = new URL(srv.url);
      let text = '';
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(`GET ${path} HTTP/1.0\r\nHost: ${url.host}\r\n\r\n`);
        resolve({ text: () => text.slice(text.indexOf('\r\n\r\n') + 4), close: () => sock.destroy() });
      });
      sock.setEncoding('utf8');
      sock.on('data', (c: string) => (text += c));
      sock.on('error', reject);
    });

  const events = (s: Stream) =>
    s
      .text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: Record<string, any> });

  beforeAll(async () => {
    srv = await startServe(['--paused']);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        scope: 'Namespaced',
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    };
    expect(await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).toBe(201);
    // until the CRD is served: a deadline, not a count of tries (a busy machine answers slowly)
    for (const end = Date.now() + 60_000; Date.now() < end; ) {
      const r = await new Promise<number>((resolve) =>
        request(`${srv.url}/apis/example.com/v1/namespaces/default/gadgets`, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).end(),
      );
      if (r === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('every watcher kind reads every event of a burst once, in order, in its own representation', async () => {
    const cms = '/api/v1/namespaces/default/configmaps?watch=1';
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const plain = await Promise.all(Array.from({ length: 6 }, () => open(cms)));
    const tables = await Promise.all(Array.from({ length: 3 }, () => open(cms, table)));
    const old = await open10(cms);
    const gadgets = (v: string) => open(`/apis/example.com/${v}/namespaces/default/gadgets?watch=1`);
    const v1 = await Promise.all([gadgets('v1'), gadgets('v1')]);
    const v2 = await Promise.all([gadgets('v2'), gadgets('v2')]);

    const n = 40;
    const codes = await Promise.all(
      Array.from({ length: n }, (_, i) => [
        send('POST', '/api/v1/namespaces/default/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `c${i}` },
          data: { i: String(i) },
        }),
        send('POST', '/apis/example.com/v1/namespaces/default/gadgets', {
          apiVersion: 'example.com/v1',
          kind: 'Gadget',
          metadata: { name: `g${i}` },
          spec: { i },
        }),
      ]).flat(),
    );
    expect(codes.every((c) => c === 201)).toBe(true);
    const all = [...plain, ...tables, old, ...v1, ...v2];
    for (const end = Date.now() + 60_000; Date.now() < end && all.some((s) => events(s).length < n); )
      await new Promise((r) => setTimeout(r, 50));
    for (const s of all) s.close();

    const rvs = (s: Stream, rvOf: (o: Record<string, any>) => string) =>
      events(s).map((e) => Number(rvOf(e.object)));
    const inOrder = (xs: number[]) =>
      xs.length === n && new Set(xs).size === n && xs.every((x, i) => i === 0 || x > xs[i - 1]!);
    for (const s of [...plain, old]) {
      expect(inOrder(rvs(s, (o) => o.metadata.resourceVersion))).toBe(true);
      expect(events(s).every((e) => e.type === 'ADDED' && e.object.kind === 'ConfigMap')).toBe(true);
    }
    // the plain watchers read the same bytes
    for (const s of plain) expect(s.text()).toBe(plain[0]!.text());
    expect(old.text()).toBe(plain[0]!.text());
    for (const s of tables) {
      const ev = events(s);
      expect(inOrder(rvs(s, (o) => o.rows[0].object.metadata.resourceVersion))).toBe(true);
      expect(ev.every((e) => e.object.kind === 'Table')).toBe(true);
      expect(ev[0]!.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
        'Name',
        'Data',
        'Age',
      ]);
      expect(ev.slice(1).every((e) => (e.object.columnDefinitions ?? []).length === 0)).toBe(true);
      expect(ev.map((e) => e.object.rows[0].cells.slice(0, 2))).toEqual(
        events(plain[0]!).map((e) => [e.object.metadata.name, 1]),
      );
    }
    for (const [version, streams] of [
      ['v1', v1],
      ['v2', v2],
    ] as const)
      for (const s of streams) {
        expect(inOrder(rvs(s, (o) => o.metadata.resourceVersion))).toBe(true);
        expect(events(s).every((e) => e.object.apiVersion === `example.com/${version}`)).toBe(true);
      }
  }, 240_000);
});

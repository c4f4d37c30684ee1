/**
 * `kubesim bench watch`: watch fan-out over HTTP, as kube-apiserver's clients meet it. An
 * ApiServer over the in-memory store behind `startHttpServer`; W raw HTTP watchers on ConfigMaps
 * from one resourceVersion; 20 writers creating and then updating ConfigMaps over HTTP for a fixed
 * time. Per size (watchers): writes/s, delivery latency (write sent → event read by a watcher,
 * p50/p99) and the lost / duplicated / out-of-order events summed over all watchers, which must
 * be 0 (the run fails otherwise). Two modes side by side: `shared` (each event encoded once and the
 * bytes shared, the server's default) and `per-watcher` (each watcher encodes its own). Watchers, writers and server share this one process, so the
 * figures are a lower bound of what the server alone sustains.
 */
import { Agent, request } from 'node:http';
import { ApiServer } from '../src/api/apiserver.js';
import { startHttpServer } from '../src/server/http.js';
import { MemoryStore } from '../src/store/memory/store.js';
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';

const WRITERS = 20;

interface Watcher {
  lastRv: number;
  seen: Set<number>;
  events: number;
  duplicated: number;
  outOfOrder: number;
  close(): void;
}

function watch(base: string, rv: string, agent: Agent, latencies: number[]): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const w: Watcher = {
      lastRv: Number(rv),
      seen: new Set(),
      events: 0,
      duplicated: 0,
      outOfOrder: 0,
      close: () => {},
    };
    const req = request(
      `${base}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`,
      { agent },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl = buf.indexOf('\n');
          while (nl >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            nl = buf.indexOf('\n');
            // the two fields checked, without parsing the whole event
            const got = Number(/"resourceVersion":"(\d+)"/.exec(line)?.[1]);
            const sent = Number(/"bench\/sent":"(\d+(?:\.\d+)?)"/.exec(line)?.[1]);
            w.events++;
            if (w.seen.has(got)) w.duplicated++;
            else if (got < w.lastRv) w.outOfOrder++;
            w.seen.add(got);
            w.lastRv = Math.max(w.lastRv, got);
            if (sent) latencies.push(performance.now() - sent);
          }
        });
        resolve(w);
      },
    );
    w.close = () => req.destroy();
    req.on('error', (e) => (w.events === 0 ? reject(e) : undefined));
    req.end();
  });
}

function send(base: string, agent: Agent, method: string, path: string, body: object): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function fanout(
  watchers: number,
  shared: boolean,
  opts: BenchOptions,
  rec: BenchRecorder,
): Promise<void> {
  const api = new ApiServer(new MemoryStore(), { seed: opts.seed });
  await api.bootstrapNamespaces();
  const srv = await startHttpServer({
    api,
    version: 'bench',
    watch: { minRequestTimeoutMs: 0, bookmarkEveryMs: 3_600_000, shareEncoded: shared },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  try {
    const rv = (await api.list('configmaps', { namespace: 'default' })).metadata.resourceVersion!;
    const latencies: number[] = [];
    const ws: Watcher[] = [];
    for (let i = 0; i < watchers; i++) ws.push(await watch(srv.url, rv, agent, latencies));
    const mode = shared ? 'shared' : 'per-watcher';
    opts.progress(`${mode}: ${watchers} watchers, ${WRITERS} writers`, watchers);
    const durationMs = opts.quick ? 2_000 : 10_000;
    const t0 = performance.now();
    let writes = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, wi) => {
        for (let n = 0; performance.now() - t0 < durationMs; n++) {
          const name = `w${wi}-${n}`;
          const cm = (v: string) => ({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, annotations: { 'bench/sent': String(performance.now()) } },
            data: { v },
          });
          if ((await send(srv.url, agent, 'POST', '/api/v1/namespaces/default/configmaps', cm('1'))) !== 201)
            failed++;
          if (
            (await send(srv.url, agent, 'PUT', `/api/v1/namespaces/default/configmaps/${name}`, cm('2'))) !==
            200
          )
            failed++;
          writes += 2;
        }
      }),
    );
    const wallMs = performance.now() - t0;
    const expected = writes - failed;
    const until = performance.now() + 30_000;
    while (ws.some((w) => w.events < expected) && performance.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    for (const w of ws) w.close();
    const lost = ws.reduce((a, w) => a + Math.max(0, expected - w.seen.size), 0);
    const duplicated = ws.reduce((a, w) => a + w.duplicated, 0);
    const outOfOrder = ws.reduce((a, w) => a + w.outOfOrder, 0);
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
    rec.timing('writes while watched', wallMs, {
      mode,
      size: watchers,
      units: writes,
      unit: 'writes',
      figures: {
        writers: WRITERS,
        failedWrites: failed,
        lost,
        duplicated,
        outOfOrder,
        p50Ms: pct(0.5),
        p99Ms: pct(0.99),
      },
    });
    if (lost || duplicated || outOfOrder || failed)
      throw new Error(
        `${watchers} watchers: ${lost} lost, ${duplicated} duplicated, ${outOfOrder} out-of-order events, ${failed} failed writes`,
      );
  } finally {
    agent.destroy();
    await srv.close();
  }
}

export const suite: BenchSuite = {
  name: 'watch',
  description:
    'HTTP watch fan-out: W watchers × 20 writers on ConfigMaps; lost/duplicated/out-of-order must be 0',
  sizeUnit: 'watchers',
  defaultSizes: [100, 500],
  quickSizes: [50],
  async run(opts, rec) {
    for (const w of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes))
      for (const shared of [false, true]) await fanout(w, shared, opts, rec);
  },
};

/**
 * The watchers of `kubesim bench watch`, in a child process of their own (forked by bench/watch.ts)
 * so that the server's CPU time is measured apart from its clients'. Messages from the parent:
 * `{start: {url, rv, count}}` opens `count` raw HTTP watches on ConfigMaps from resourceVersion `rv`
 * and answers `{ready: true}`; `{expect: n}` waits (≤ 30 s) until every watcher has read n events,
 * then answers with the counts, the delivery latencies (write sent → event read, both stamped with
 * performance.timeOrigin + now(), so comparable across processes) and this process's CPU time.
 * `{write: {url, writers, durationMs, rate?}}` makes this process the writers instead: `writers` loops
 * creating and then updating ConfigMaps over HTTP for `durationMs` (at `rate` writes/s when given), answering `{writes, failed}`
 * (kept out of the server's process, as kube-apiserver's clients are).
 */
import { Agent, request } from 'node:http';

interface Watcher {
  lastRv: number;
  seen: Set<number>;
  events: number;
  duplicated: number;
  outOfOrder: number;
  close(): void;
}

export interface ClientReport {
  events: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  latencies: Float64Array;
  cpuMs: number;
}

const now = () => performance.timeOrigin + performance.now();
const RV = Buffer.from('"resourceVersion":"');
const SENT = Buffer.from('"bench/sent":"');
let latencies = new Float64Array(1 << 16);
let nLatencies = 0;

/** the number in quotes after `key` within [from, to), or NaN */
function numberAfter(buf: Buffer, key: Buffer, from: number, to: number): number {
  const at = buf.indexOf(key, from);
  if (at < 0 || at >= to) return Number.NaN;
  const start = at + key.length;
  const end = buf.indexOf(34, start); // closing quote
  return Number(buf.toString('latin1', start, end));
}

function record(ms: number): void {
  if (nLatencies === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[nLatencies++] = ms;
}

function watch(url: string, rv: string, agent: Agent): Promise<Watcher> {
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
      `${url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`,
      { agent },
      (res) => {
        let rest: Buffer | undefined;
        res.on('data', (chunk: Buffer) => {
          const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
          const at = now();
          let from = 0;
          for (let nl = buf.indexOf(10); nl >= 0; from = nl + 1, nl = buf.indexOf(10, from)) {
            const got = numberAfter(buf, RV, from, nl);
            const sent = numberAfter(buf, SENT, from, nl);
            w.events++;
            if (w.seen.has(got)) w.duplicated++;
            else if (got < w.lastRv) w.outOfOrder++;
            w.seen.add(got);
            w.lastRv = Math.max(w.lastRv, got);
            if (sent) record(at - sent);
          }
          rest = from < buf.length ? buf.subarray(from) : undefined;
        });
        resolve(w);
      },
    );
    w.close = () => req.destroy();
    req.on('error', (e) => (w.events === 0 ? reject(e) : undefined));
    req.end();
  });
}

export interface WriterReport {
  writes: number;
  failed: number;
  /** wall time of the writes */
  ms: number;
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

/**
 * `writers` loops of create + update. With `rate` (writes/s, all writers together) each loop waits for
 * its turn on a fixed schedule (open loop: a late write is not made up by a burst), so the latency
 * figures are those of that rate rather than of a saturated server; without it they write back to back.
 */
async function write(url: string, writers: number, durationMs: number, rate?: number): Promise<WriterReport> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const t0 = performance.now();
  // a loop's n-th pair is due at (n·writers + wi) pairs into the schedule
  const pairMs = rate ? 2_000 / rate : 0;
  let writes = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, wi) => {
      for (let n = 0; performance.now() - t0 < durationMs; n++) {
        const due = t0 + (n * writers + wi) * pairMs;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        if (performance.now() - t0 >= durationMs) break;
        const name = `w${wi}-${n}`;
        const cm = (v: string) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, annotations: { 'bench/sent': String(now()) } },
          data: { v },
        });
        if ((await send(url, agent, 'POST', '/api/v1/namespaces/default/configmaps', cm('1'))) !== 201)
          failed++;
        if ((await send(url, agent, 'PUT', `/api/v1/namespaces/default/configmaps/${name}`, cm('2'))) !== 200)
          failed++;
        writes += 2;
      }
    }),
  );
  agent.destroy();
  return { writes, failed, ms: performance.now() - t0 };
}

let ws: Watcher[] = [];
let cpu0 = process.cpuUsage();

interface Message {
  start?: { url: string; rv: string; count: number };
  expect?: number;
  write?: { url: string; writers: number; durationMs: number; rate?: number };
}

process.on('message', async (m: Message) => {
  if (m.write) {
    const report = await write(m.write.url, m.write.writers, m.write.durationMs, m.write.rate);
    process.send!(report, () => process.exit(0));
  } else if (m.start) {
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    ws = await Promise.all(
      Array.from({ length: m.start.count }, () => watch(m.start!.url, m.start!.rv, agent)),
    );
    cpu0 = process.cpuUsage();
    process.send!({ ready: true });
  } else if (m.expect !== undefined) {
    const expected = m.expect;
    const until = Date.now() + 30_000;
    while (ws.some((w) => w.events < expected) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    const cpu = process.cpuUsage(cpu0);
    for (const w of ws) w.close();
    const report: ClientReport = {
      events: ws.reduce((a, w) => a + w.events, 0),
      lost: ws.reduce((a, w) => a + Math.max(0, expected - w.seen.size), 0),
      duplicated: ws.reduce((a, w) => a + w.duplicated, 0),
      outOfOrder: ws.reduce((a, w) => a + w.outOfOrder, 0),
      latencies: latencies.slice(0, nLatencies),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    process.send!(report, () => process.exit(0));
  }
});

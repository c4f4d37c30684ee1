/**
 * The watchers of `kubesim bench watch`, in a child process of their own (forked by bench/watch.ts)
 * so that the server's CPU time is measured apart from its clients'. Messages from the parent:
 * `{start: {url, rv, count}}` opens `count` raw HTTP watches on ConfigMaps from resourceVersion `rv`
 * and answers `{ready: true}`; `{expect: n}` waits (≤ 30 s) until every watcher has read n events,
 * then answers with the counts and this process's CPU time; `{latencies: true}` then answers with the
 * delivery latencies (write sent → event read, both stamped with performance.timeOrigin + now(), so
 * comparable across processes) — apart, so that the parent reads its CPU time before receiving them.
 * `{write: {url, writers, durationMs, rate?}}` makes this process the writers instead: `writers` loops
 * creating and then updating ConfigMaps over HTTP for `durationMs` (at `rate` writes/s when given), answering `{writes, failed}`
 * (kept out of the server's process, as kube-apiserver's clients are).
 */
import { Agent, request } from 'node:http';

interface Watcher {
  lastRv: number;
  /** resourceVersions read, one byte each from `base` (a bitmap: 500 watchers × 10,000s of events) */
  seen: Uint8Array;
  base: number;
  /** distinct resourceVersions read */
  distinct: number;
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

/** the events of a run of complete lines: each one's resourceVersion and send stamp (NaN: none) */
interface Parsed {
  bytes: Buffer;
  rvs: Float64Array;
  sent: Float64Array;
}

/**
 * Runs of lines parsed lately, by length. The server writes the same framed chunk to every watcher
 * that received the same events, so most watchers of this process read bytes another one has
 * parsed already: they compare the bytes (memcmp) and take that parse, then still check their own
 * order, loss and duplication and stamp their own arrival time. Without this the watcher processes
 * needed a whole core to parse ~500,000 events/s and their queues, not the server, set the p99.
 */
let parsed = new Map<number, Parsed[]>();
let nParsed = 0;

function parse(lines: Buffer): Parsed {
  const same = parsed.get(lines.length);
  if (same) for (const p of same) if (p.bytes.equals(lines)) return p;
  const rvs: number[] = [];
  const sent: number[] = [];
  for (let from = 0, nl = lines.indexOf(10); nl >= 0; from = nl + 1, nl = lines.indexOf(10, from)) {
    rvs.push(numberAfter(lines, RV, from, nl));
    sent.push(numberAfter(lines, SENT, from, nl));
  }
  const p = { bytes: lines, rvs: Float64Array.from(rvs), sent: Float64Array.from(sent) };
  if (++nParsed > 512) {
    parsed = new Map();
    nParsed = 0;
  }
  const list = parsed.get(lines.length);
  if (!list) parsed.set(lines.length, [p]);
  else if (list.unshift(p) > 8) list.pop();
  return p;
}

/** count one watcher's events read at `at` */
function take(w: Watcher, p: Parsed, at: number): void {
  for (let i = 0; i < p.rvs.length; i++) {
    const got = p.rvs[i]!;
    w.events++;
    const bit = got - w.base;
    if (bit >= 0 && bit < w.seen.length && w.seen[bit]) w.duplicated++;
    else {
      if (got < w.lastRv || !(bit >= 0)) w.outOfOrder++;
      if (bit >= 0) {
        if (bit >= w.seen.length) {
          const grown = new Uint8Array(Math.max(bit + 1, w.seen.length * 2));
          grown.set(w.seen);
          w.seen = grown;
        }
        w.seen[bit] = 1;
      }
      w.distinct++;
    }
    w.lastRv = Math.max(w.lastRv, got);
    const sent = p.sent[i]!;
    if (sent) record(at - sent);
  }
}

function watch(url: string, rv: string, agent: Agent): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const w: Watcher = {
      lastRv: Number(rv),
      seen: new Uint8Array(1 << 12),
      base: Number(rv) + 1,
      distinct: 0,
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
          const end = buf.lastIndexOf(10) + 1;
          if (end > 0) take(w, parse(buf.subarray(0, end)), at);
          rest = end < buf.length ? buf.subarray(end) : undefined;
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
  latencies?: true;
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
      lost: ws.reduce((a, w) => a + Math.max(0, expected - w.distinct), 0),
      duplicated: ws.reduce((a, w) => a + w.duplicated, 0),
      outOfOrder: ws.reduce((a, w) => a + w.outOfOrder, 0),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    process.send!(report);
  } else if (m.latencies) {
    process.send!(latencies.slice(0, nLatencies), () => process.exit(0));
  }
});

// #32's fault test, loopback only and bounded in time: two `kubesim serve` over a 3-member etcd
// cluster under a steady load of creates, updates with resourceVersion preconditions (some of them
// deliberately conflicting, one through each serve) and watches (one on each serve). One etcd
// member is killed and restarted, then the leading serve is killed, all by pid. Afterwards:
//  - every write a client saw acknowledged is in etcd's history at its resourceVersion;
//  - every watcher's resourceVersions, across its re-watches, are exactly the store's history
//    of the watched prefix over the span it watched (no event skipped, none twice);
//  - the Lease moved to the other serve, whose controllers and scheduler carry on;
//  - the 409s are exactly the losers of the conflicting pairs.
import { expect, it } from 'vitest';
import { type LaunchedEtcdCluster, launchEtcdCluster } from '../../src/store/etcd/cluster.js';
import { EtcdStore } from '../../src/store/etcd/etcd-store.js';
import { describeEtcd } from '../helpers/etcd.js';
import { builtCli, startServe, type ServeProcess } from './serve-process.js';
import { ELECTION, leaderOf, until, webDeployment } from './serve-ha.js';

const NS = 'fault';
const cmPath = `/api/v1/namespaces/${NS}/configmaps`;

interface Obj {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

type Outcome = { status: number; body?: Obj } | { status: 'error' };

/** One HTTP write; a network failure or 5xx is indeterminate (the write may or may not have landed). */
async function write(url: string, method: string, body: unknown): Promise<Outcome> {
  try {
    const res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status >= 500) return { status: 'error' };
    return { status: res.status, body: res.ok ? (JSON.parse(text) as Obj) : undefined };
  } catch {
    return { status: 'error' };
  }
}

const cm = (name: string, data: Record<string, string>, resourceVersion?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...(resourceVersion ? { resourceVersion } : {}) },
  data,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A watcher that re-watches from the last resourceVersion it saw whenever its stream ends. */
function watcher(urls: () => string, fromRv: string) {
  const rvs: number[] = [];
  let last = fromRv;
  let stopped = false;
  let ac: AbortController | undefined;
  let rewatches = 0;
  let gone = 0;
  const run = async () => {
    while (!stopped) {
      ac = new AbortController();
      try {
        const res = await fetch(
          `${urls()}${cmPath}?watch=1&resourceVersion=${last}&allowWatchBookmarks=false`,
          {
            signal: ac.signal,
          },
        );
        if (res.status !== 200) throw new Error(`watch ${res.status}`);
        const reader = res.body!.getReader();
        const dec = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const e = JSON.parse(buf.slice(0, nl)) as { type: string; object: Obj & { code?: number } };
            buf = buf.slice(nl + 1);
            if (e.type === 'ERROR') {
              // 410 would mean a relist; without compaction in this test it must not happen
              if (e.object.code === 410) gone++;
              continue;
            }
            rvs.push(Number(e.object.metadata.resourceVersion));
            last = e.object.metadata.resourceVersion;
          }
        }
      } catch {
        // the serve died or the stream broke: watch again from the last resourceVersion seen
      }
      if (!stopped) {
        rewatches++;
        await sleep(100);
      }
    }
  };
  const done = run();
  return {
    rvs,
    get rewatches() {
      return rewatches;
    },
    get gone() {
      return gone;
    },
    get last() {
      return Number(last);
    },
    stop: async () => {
      stopped = true;
      ac?.abort();
      await done;
    },
  };
}

describeEtcd(
  'kubesim serve HA on a 3-member etcd under faults',
  () => {
    it.skipIf(!builtCli)(
      'no acknowledged write lost, gap-free watches, failover, 409s = conflicting writes',
      async () => {
        let cluster: LaunchedEtcdCluster | undefined;
        const serves: ServeProcess[] = [];
        try {
          cluster = await launchEtcdCluster({ members: 3 });
          const args = ['--etcd-servers', cluster.endpoints.join(','), ...ELECTION];
          const a = await startServe(args);
          serves.push(a);
          // A prints its URL before it has taken the Lease: B starts only once A leads (on a
          // saturated machine A's first acquire can come after B's start otherwise)
          await until('serve A to lead', async () => leaderOf(a.stderr()));
          const b = await startServe(args);
          serves.push(b);
          expect(leaderOf(b.stderr()), 'serve B does not lead while A does').toBeUndefined();
          let aAlive = true;
          const live = () => (aAlive ? [a.url, b.url] : [b.url]);

          const ns = await write(`${b.url}/api/v1/namespaces`, 'POST', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: NS },
          });
          expect(ns.status).toBe(201);
          const startRv = (ns as { body: Obj }).body.metadata.resourceVersion;
          const watchers = [watcher(() => live()[0]!, startRv), watcher(() => live().at(-1)!, startRv)];

          const acked: { name: string; rv: number }[] = [];
          const tally = {
            attempts: 0,
            indeterminate: 0,
            conflicts: 0,
            pairs: 0,
            definitePairs: 0,
            other409: 0,
          };
          let loading = true;
          // writers: create an object, then update it under its resourceVersion, again and again
          const writer = async (w: number) => {
            for (let n = 0; loading; n++) {
              const urls = live();
              const url = urls[n % urls.length]!;
              const name = `w${w}-${n}`;
              tally.attempts++;
              const c = await write(`${url}${cmPath}`, 'POST', cm(name, { n: '0' }));
              if (c.status !== 201) {
                if (c.status === 'error') tally.indeterminate++;
                else if (c.status === 409) tally.other409++;
                continue;
              }
              let cur = c.body!;
              acked.push({ name, rv: Number(cur.metadata.resourceVersion) });
              for (let u = 1; u <= 2 && loading; u++) {
                tally.attempts++;
                const r = await write(
                  `${live().at(-1)}${cmPath}/${name}`,
                  'PUT',
                  cm(name, { n: String(u) }, cur.metadata.resourceVersion),
                );
                if (r.status === 200) {
                  cur = r.body!;
                  acked.push({ name, rv: Number(cur.metadata.resourceVersion) });
                } else {
                  if (r.status === 'error') tally.indeterminate++;
                  else if (r.status === 409) tally.other409++;
                  break;
                }
              }
            }
          };
          // conflicting pairs: two updates from the same resourceVersion, one through each serve
          const conflicter = async () => {
            for (let n = 0; loading; n++) {
              const name = `pair-${n}`;
              tally.attempts++;
              const c = await write(`${live().at(-1)}${cmPath}`, 'POST', cm(name, {}));
              if (c.status !== 201) continue;
              acked.push({ name, rv: Number(c.body!.metadata.resourceVersion) });
              const rv = c.body!.metadata.resourceVersion;
              const urls = live();
              tally.pairs++;
              const rs = await Promise.all(
                ['x', 'y'].map((v, i) =>
                  write(`${urls[i % urls.length]}${cmPath}/${name}`, 'PUT', cm(name, { v }, rv)),
                ),
              );
              if (rs.some((r) => r.status === 'error')) {
                tally.indeterminate++;
                continue;
              }
              tally.definitePairs++;
              for (const r of rs) {
                if (r.status === 409) tally.conflicts++;
                if (r.status === 200) acked.push({ name, rv: Number(r.body!.metadata.resourceVersion) });
              }
              await sleep(50);
            }
          };

          // the controllers' work before the faults
          const deploy = await write(
            `${b.url}/apis/apps/v1/namespaces/${NS}/deployments`,
            'POST',
            webDeployment(2),
          );
          expect(deploy.status).toBe(201);

          const load = Promise.all([writer(0), writer(1), writer(2), conflicter()]);
          await sleep(1500);
          // an etcd member dies under the load, then comes back
          const member = cluster.members[1]!;
          await member.kill();
          await sleep(2000);
          await member.restart();
          await sleep(1000);
          // the leading serve dies
          const killedAt = Date.now();
          process.kill(a.child.pid!, 'SIGKILL');
          aAlive = false;
          let failoverMs = 0;
          // deadlines below are hang guards (each loop ends when its condition holds): a saturated
          // machine makes the failover, the scale-up and the watchers' catch-up slower, not wrong
          for (const end = Date.now() + 90_000; Date.now() < end; await sleep(100)) {
            if (leaderOf(b.stderr())) {
              failoverMs = Date.now() - killedAt;
              break;
            }
          }
          expect(failoverMs, 'serve B took the Lease').toBeGreaterThan(0);
          await sleep(1000);
          loading = false;
          await load;

          // the controllers and scheduler work under the new leader
          const scaled = await fetch(`${b.url}/apis/apps/v1/namespaces/${NS}/deployments/web`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/merge-patch+json' },
            body: JSON.stringify({ spec: { replicas: 4 } }),
          });
          expect(scaled.status).toBe(200);
          let running = 0;
          for (const end = Date.now() + 90_000; Date.now() < end && running < 4; await sleep(200)) {
            const pods = (await (
              await fetch(`${b.url}/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)
            ).json()) as {
              items: { spec: { nodeName?: string }; status: { phase?: string } }[];
            };
            running = pods.items.filter((p) => p.spec.nodeName && p.status.phase === 'Running').length;
          }
          expect(running).toBe(4);

          // a last write, so that every watcher has a known end to reach
          const fin = await write(`${b.url}${cmPath}`, 'POST', cm('final', {}));
          expect(fin.status).toBe(201);
          const finalRv = Number((fin as { body: Obj }).body.metadata.resourceVersion);
          for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100))
            if (watchers.every((w) => w.last >= finalRv)) break;
          await Promise.all(watchers.map((w) => w.stop()));

          // etcd's own record: every acknowledged write is there at its revision
          const raw = new EtcdStore({ endpoints: cluster.endpoints });
          try {
            let lost = 0;
            for (const w of acked) {
              const r = await raw.range({ key: `/registry/configmaps/${NS}/${w.name}`, revision: w.rv });
              if (r.kvs[0]?.modRevision !== w.rv) lost++;
            }
            expect(lost).toBe(0);

            // the store's history of the prefix from the watchers' start to the final write
            const history: number[] = [];
            await new Promise<void>((resolve, reject) => {
              let done = false;
              raw
                .watch(
                  {
                    key: `/registry/configmaps/${NS}/`,
                    rangeEnd: `/registry/configmaps/${NS}0`,
                    startRevision: Number(startRv) + 1,
                  },
                  (resp) => {
                    for (const e of resp.events) history.push(e.kv.modRevision);
                    if (!done && history.at(-1)! >= finalRv) {
                      done = true;
                      resolve();
                    }
                  },
                )
                .then((wt) => setTimeout(() => void wt.cancel(), 5000), reject);
            });
            for (const w of watchers) {
              expect(w.gone).toBe(0);
              expect(w.rvs).toEqual(history.filter((rv) => rv <= finalRv));
            }
          } finally {
            await raw.close();
          }

          // 409s: exactly one per conflicting pair, and none anywhere else
          expect(tally.conflicts).toBe(tally.definitePairs);
          expect(tally.other409).toBe(0);
          expect(acked.length).toBeGreaterThan(50);
          console.log(
            `[fault] writes attempted ${tally.attempts + 2 * tally.pairs}, acknowledged ${acked.length}, lost 0, ` +
              `indeterminate ${tally.indeterminate}, conflicting pairs ${tally.definitePairs} → 409s ${tally.conflicts}, ` +
              `re-watches ${watchers.map((w) => w.rewatches).join('/')}, failover ${failoverMs} ms`,
          );
        } finally {
          for (const s of serves) await s.stop();
          await cluster?.stop();
        }
      },
      240_000,
    );
  },
  { shared: false },
);

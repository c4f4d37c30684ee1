/**
 * `kubesim bench proxy`: kube-proxy's three modes side by side on the same seeded cluster
 * (N services × M endpoints, mixed types and policies, src/proxy/gen.ts):
 *
 *   render full          time to render the whole ruleset; rules, bytes          (per mode, size)
 *   endpoint change      one pod replaced → the next sync: time, and what it rewrites
 *                        (iptables: partial restore; nftables: partial transaction;
 *                        ipvs: netlink delta + the small iptables restore)
 *   churn                sustained endpoint changes per second, one sync per change, at
 *                        --churn-services (default 1k, 10k, 100k services; quick 300, 1k, 3k)
 *   classify js / wasm   packets/s of the dataplane model on the compiled ruleset, with the
 *                        rules traversed and hash lookups per packet
 *   real tools           wall time of `iptables-restore --test`, `nft -c -f`, `ipset restore`
 *                        on the generated rulesets, inside a network namespace created for the
 *                        run (skipped with the reason where the tool or kernel support is missing)
 *
 * Every mode is driven through its Proxier (src/proxy/renderers/<mode>/proxier.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchChart, BenchOptions, BenchRecorder, BenchResult, BenchSuite } from './harness.js';
import { parseSizes } from './harness.js';
import { EndpointChurn, generateServices, type GeneratedServices } from '../src/proxy/gen.js';
import { ProxyState } from '../src/proxy/model/index.js';
import { IptablesProxier } from '../src/proxy/renderers/iptables/proxier.js';
import { NftablesProxier } from '../src/proxy/renderers/nftables/proxier.js';
import { IpvsProxier } from '../src/proxy/renderers/ipvs/proxier.js';
import { ManualClock } from '../src/util/clock.js';
import { compileMode, PROXY_MODES, type ProxyMode } from '../src/proxy/dataplane/modes.js';
import { JsKernel, newResult } from '../src/proxy/dataplane/kernel-js.js';
import { WasmKernel } from '../src/proxy/dataplane/kernel-wasm.js';
import { generatePackets } from '../src/proxy/dataplane/packets.js';
import { Rng } from '../src/util/rng.js';

const NODE_IP = '192.168.0.10';

/** What one endpoint change makes the mode write: rules, set/map elements, IPVS objects. */
function writtenPerChange(r: BenchResult): number | undefined {
  const f = r.figures;
  if (!f) return undefined;
  const keys = [
    'rulesWritten',
    'elementsWritten',
    'realServersChanged',
    'virtualServersChanged',
    'ipsetEntriesChanged',
    'iptablesRulesRewritten',
  ];
  const present = keys.filter((k) => f[k] !== undefined);
  return present.length ? present.reduce((a, k) => a + f[k], 0) : undefined;
}

/** "iptables js" and "iptables wasm" evaluate the same rules: one series per proxy mode. */
const proxyMode = (r: BenchResult) => (r.mode ?? '').replace(/ (js|wasm)$/, '');

const charts: BenchChart[] = [
  {
    title: 'Rules evaluated per packet (new connections)',
    measurement: 'classify',
    yLabel: 'rules per packet',
    value: (r) => r.figures?.['rules/pkt'],
    series: proxyMode,
  },
  {
    title: 'Bytes written per endpoint change',
    measurement: 'endpoint change',
    yLabel: 'bytes',
    value: (r) => r.figures?.bytesWritten,
  },
  {
    title: 'Rules and entries written per endpoint change',
    measurement: 'endpoint change',
    yLabel: 'rules, set elements, IPVS objects',
    value: writtenPerChange,
  },
  {
    title: 'Sync time per endpoint change (p50)',
    measurement: 'endpoint change',
    yLabel: 'ms',
    value: (r) => r.latency?.p50,
    timed: true,
  },
  {
    title: 'Full sync: render time (p50)',
    measurement: 'render full',
    yLabel: 'ms',
    value: (r) => r.latency?.p50,
    timed: true,
  },
  {
    title: 'Full sync: ruleset size',
    measurement: 'render full',
    yLabel: 'bytes',
    value: (r) => r.figures?.bytes,
  },
];

export const suite: BenchSuite = {
  name: 'proxy',
  charts,
  description:
    'kube-proxy iptables vs ipvs vs nftables: ruleset size, full render, one endpoint change, per-packet lookup (JS/WASM), real tools',
  sizeUnit: 'services',
  defaultSizes: [1000, 5000, 10000],
  quickSizes: [200, 1000],
  // `bench all`: time the real tools only up to 2,000 services (nft -f of 10k services alone takes minutes)
  allArgs: { realToolsMax: '2000' },
  options: [
    {
      flags: '--services <list>',
      description: 'service counts to sweep (same as --sizes), e.g. 1000,5000,10000',
    },
    { flags: '--endpoints <n>', description: 'endpoints per service', default: '10' },
    { flags: '--modes <list>', description: 'modes to compare', default: 'iptables,ipvs,nftables' },
    { flags: '--packets <n>', description: 'packets per classification batch', default: '20000' },
    {
      flags: '--no-real-tools',
      description: 'skip timing iptables-restore --test / nft -c -f / ipset restore',
    },
    {
      flags: '--churn-services <list>',
      description:
        'service counts of the churn measurement (default 1000,10000,100000; quick 300,1000,3000; "none" skips it)',
    },
    {
      flags: '--real-tools-max <n>',
      description: 'largest service count at which the real tools are timed',
      default: '10000',
    },
  ],
  async run(opts, rec) {
    const sizes = opts.args.services
      ? parseSizes(String(opts.args.services))
      : (opts.sizes ?? (opts.quick ? this.quickSizes : this.defaultSizes));
    const endpoints = Number(opts.args.endpoints ?? 10);
    if (!Number.isInteger(endpoints) || endpoints < 0)
      throw new TypeError(`--endpoints must be a non-negative integer, got ${String(opts.args.endpoints)}`);
    const modes = String(opts.args.modes ?? 'iptables,ipvs,nftables')
      .split(',')
      .map((s) => s.trim()) as ProxyMode[];
    for (const m of modes)
      if (!PROXY_MODES.includes(m))
        throw new TypeError(`--modes: unknown mode "${m}" (expected ${PROXY_MODES.join(', ')})`);
    const packets = Number(opts.args.packets ?? (opts.quick ? 5000 : 20000));
    const realTools = opts.args.realTools !== false;
    const realMax = Number(opts.args.realToolsMax ?? 10000);
    rec.note(
      `cluster: src/proxy/gen.ts, seed ${opts.seed}, ${endpoints} endpoints per service, 100 nodes, node-0 is the proxier's node (IP ${NODE_IP}); default mix (10% NodePort, 5% LoadBalancer, 3% externalIPs, 8% ClientIP affinity, 10% UDP, 15% with a second port)`,
    );
    rec.note(
      'endpoint change: one pod of one service replaced by a new ready pod; time covers the model update and the sync; iptables/nftables sync only the changed Service (partial), ipvs applies the netlink delta and rewrites its small iptables ruleset',
    );
    rec.note(
      'classify: new connections to random frontends (ClusterIP, external, LB, NodePort) from pods or outside, 5% misses; "rules/pkt" counts every rule evaluated, "lookups/pkt" every hash lookup (vmap, ipset, addrtype LOCAL, affinity set, IPVS service/template)',
    );

    let ns: string | null = null;
    let dir: string | null = null;
    if (realTools) {
      const r = setupNetns();
      if (typeof r === 'string') rec.note(`real tools skipped: ${r}`);
      else {
        ns = r.ns;
        dir = mkdtempSync(join(tmpdir(), 'kubesim-bench-proxy-'));
      }
    }
    const churnArg = String(opts.args.churnServices ?? (opts.quick ? '300,1000,3000' : '1000,10000,100000'));
    const churnSizes = churnArg === 'none' ? [] : parseSizes(churnArg);
    rec.note(
      'churn: endpoint changes back to back on one long-lived proxier, each followed by its sync (model update + sync, the change generator excluded); the rate one node absorbs',
    );
    try {
      for (const size of sizes) {
        for (const mode of modes) {
          await benchMode(mode, size, endpoints, packets, opts, rec);
          if (ns && dir && size <= realMax) realToolTimes(mode, size, endpoints, opts, rec, ns, dir);
        }
      }
      for (const size of churnSizes)
        for (const mode of modes) await benchChurn(mode, size, endpoints, opts, rec);
    } finally {
      if (ns) spawnSync('ip', ['netns', 'del', ns]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  },
};

function newCluster(
  size: number,
  endpoints: number,
  seed: number,
): { c: GeneratedServices; state: ProxyState } {
  const c = generateServices({ services: size, endpoints, seed });
  const state = new ProxyState({ name: c.nodeName, ips: { IPv4: NODE_IP } });
  for (const s of c.services) state.onServiceAdd(s);
  for (const s of c.endpointSlices) state.onEndpointSliceAdd(s);
  state.applyChanges();
  return { c, state };
}

interface ModeSyncer {
  /** one full render from scratch (new proxier) → counts */
  full(): { rules: number; bytes: number; extra: Record<string, number> };
  /** incremental sync on the long-lived proxier → what it wrote */
  sync(): Record<string, number>;
}

function syncerFor(mode: ProxyMode, state: ProxyState, clusterCIDR: string, serviceCIDR: string): ModeSyncer {
  if (mode === 'iptables') {
    const live = new IptablesProxier(state, { clusterCIDR });
    live.sync();
    return {
      full() {
        const rep = new IptablesProxier(state, { clusterCIDR }).sync();
        return {
          rules: rep.rulesWritten,
          bytes: rep.bytes,
          extra: { chains: rep.chainsWritten, lines: rep.lines },
        };
      },
      sync() {
        const rep = live.sync();
        return {
          rulesWritten: rep.rulesWritten,
          chainsWritten: rep.chainsWritten,
          bytesWritten: rep.bytes,
          deletedChains: rep.deletedChains,
        };
      },
    };
  }
  if (mode === 'nftables') {
    const clock = new ManualClock(0);
    const live = new NftablesProxier(state, { clusterCIDR, serviceCIDRs: [serviceCIDR], clock });
    live.sync();
    return {
      full() {
        const r = new NftablesProxier(state, { clusterCIDR, serviceCIDRs: [serviceCIDR], clock }).sync();
        return {
          rules: r.tx.rules,
          bytes: r.tx.bytes,
          extra: { chains: r.tx.chainsAdded, elements: r.tx.elements, lines: r.tx.lines },
        };
      },
      sync() {
        clock.advance(2000);
        const r = live.sync();
        return {
          rulesWritten: r.tx.rules,
          elementsWritten: r.tx.elements,
          chainsWritten: r.tx.chainsAdded,
          chainsFlushed: r.tx.chainsFlushed,
          bytesWritten: r.tx.bytes + r.staleTx.bytes,
          chainsDeleted: r.staleTx.chainsDeleted,
        };
      },
    };
  }
  const live = new IpvsProxier(state, { clusterCIDR });
  live.sync();
  return {
    full() {
      const r = new IpvsProxier(state, { clusterCIDR }).sync();
      const b = r.counts.bytes;
      return {
        rules: r.counts.virtualServers + r.counts.realServers + r.counts.iptablesRules,
        bytes: b.ipvsadm + b.ipset + b.iptables + b.addresses,
        extra: {
          virtualServers: r.counts.virtualServers,
          realServers: r.counts.realServers,
          ipsetEntries: r.counts.ipsetEntries,
          iptablesRules: r.counts.iptablesRules,
          boundAddresses: r.counts.boundAddresses,
        },
      };
    },
    sync() {
      const r = live.sync();
      return {
        realServersChanged: r.counts.deltaOps.realServers,
        virtualServersChanged: r.counts.deltaOps.virtualServers,
        ipsetEntriesChanged: r.counts.deltaOps.ipsetEntries,
        iptablesRulesRewritten: r.counts.iptablesRules,
        bytesWritten: r.counts.deltaBytes,
      };
    },
  };
}

async function benchMode(
  mode: ProxyMode,
  size: number,
  endpoints: number,
  packets: number,
  opts: BenchOptions,
  rec: BenchRecorder,
): Promise<void> {
  const { c, state } = newCluster(size, endpoints, opts.seed);
  const syncer = syncerFor(mode, state, c.clusterCIDR, c.serviceCIDR);
  const few = { iterations: opts.quick ? 2 : 3, timeMs: opts.quick ? 200 : 1000 };

  // full render
  let counts = syncer.full();
  await rec.measure(
    'render full',
    () => {
      counts = syncer.full();
    },
    { mode, size, unit: 'renders', ...few, figures: undefined },
  );
  const last = rec.results[rec.results.length - 1];
  last.figures = { rules: counts.rules, bytes: counts.bytes, ...counts.extra };

  // one endpoint change → sync
  const rng = new Rng(`change-${opts.seed}`);
  const churn = new EndpointChurn(c);
  let wrote: Record<string, number> = {};
  const change = () => {
    const ch = churn.next(rng);
    state.onEndpointSliceUpdate(ch.old, ch.slice);
    wrote = syncer.sync();
  };
  change();
  await rec.measure('endpoint change', change, {
    mode,
    size,
    unit: 'syncs',
    iterations: opts.quick ? 5 : 20,
    timeMs: opts.quick ? 200 : 1000,
  });
  rec.results[rec.results.length - 1].figures = wrote;

  // dataplane classification
  const t0 = performance.now();
  const prog = compileMode(mode, state, { clusterCIDR: c.clusterCIDR, serviceCIDRs: [c.serviceCIDR] });
  const compileMs = performance.now() - t0;
  const batch = generatePackets(state.servicePorts, state.node, {
    n: packets,
    seed: opts.seed,
    podCIDR: c.clusterCIDR,
  });
  const js = new JsKernel(prog);
  const out = newResult(batch.n);
  js.classify(batch, out);
  const stats = perPacket(out.rules, out.lookups, out.result);
  await rec.measure('classify', () => js.classify(batch, out), {
    mode: `${mode} js`,
    size,
    units: batch.n,
    unit: 'packets',
    timeMs: opts.timeMs,
    figures: {
      ...stats,
      compileMs: round(compileMs),
      programRules: prog.summary.rules,
      mapEntries: prog.summary.mapEntries,
    },
  });
  try {
    const wasm = new WasmKernel(prog);
    wasm.load(batch);
    await rec.measure('classify', () => wasm.run(), {
      mode: `${mode} wasm`,
      size,
      units: batch.n,
      unit: 'packets',
      timeMs: opts.timeMs,
      figures: stats,
    });
  } catch (e) {
    rec.skip('classify', (e as Error).message, { mode: `${mode} wasm`, size });
  }
}

/** Sustained churn: CHURN_BATCH endpoint changes per iteration, each followed by a sync. */
const CHURN_BATCH = 20;

async function benchChurn(
  mode: ProxyMode,
  size: number,
  endpoints: number,
  opts: BenchOptions,
  rec: BenchRecorder,
): Promise<void> {
  rec.opts.progress(`churn ${mode} setup`, size);
  const { c, state } = newCluster(size, endpoints, opts.seed);
  const syncer = syncerFor(mode, state, c.clusterCIDR, c.serviceCIDR);
  const rng = new Rng(`churn-${opts.seed}`);
  const churn = new EndpointChurn(c);
  await rec.measure(
    'churn',
    () => {
      for (let i = 0; i < CHURN_BATCH; i++) {
        const ch = churn.next(rng);
        state.onEndpointSliceUpdate(ch.old, ch.slice);
        syncer.sync();
      }
    },
    {
      mode,
      size,
      units: CHURN_BATCH,
      unit: 'changes',
      iterations: opts.quick ? 3 : 5,
      timeMs: opts.quick ? 300 : 1000,
    },
  );
}

function perPacket(rules: Int32Array, lookups: Int32Array, result: Int32Array): Record<string, number> {
  const n = rules.length;
  let r = 0,
    l = 0,
    dnat = 0;
  for (let i = 0; i < n; i++) {
    r += rules[i];
    l += lookups[i];
    if (result[i] >= 0) dnat++;
  }
  const sorted = Int32Array.from(rules).sort();
  return {
    'rules/pkt': round(r / n),
    'rules p99': sorted[Math.floor(n * 0.99)] ?? 0,
    'rules max': sorted[n - 1] ?? 0,
    'lookups/pkt': round(l / n),
    'dnat share': round(dnat / n),
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

// ───────────────────────────── real tools ─────────────────────────────

/** Creates the run's network namespace; returns its name, or the reason it cannot. */
function setupNetns(): { ns: string } | string {
  if (process.getuid?.() !== 0) return 'not root (network namespaces need CAP_SYS_ADMIN)';
  const name = `kubesim-bench-${process.pid}`;
  const r = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (r.error) return `ip(8) missing: ${r.error.message}`;
  if (r.status !== 0) return `ip netns add failed: ${r.stderr.trim()}`;
  return { ns: name };
}

function timeTool(
  ns: string,
  cmd: string,
  args: string[],
  input?: string,
): { ms: number; ok: boolean; err: string } {
  const t0 = performance.now();
  const r = spawnSync('ip', ['netns', 'exec', ns, cmd, ...args], {
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  const err = r.error
    ? r.error.message
    : (r.stderr ?? '')
        .split('\n')
        .filter((l) => l && !/^Warning: Extension ipvs/.test(l))
        .join(' ')
        .slice(0, 200);
  return { ms, ok: !r.error && r.status === 0, err };
}

function realToolTimes(
  mode: ProxyMode,
  size: number,
  endpoints: number,
  opts: BenchOptions,
  rec: BenchRecorder,
  ns: string,
  dir: string,
): void {
  const { c, state } = newCluster(size, endpoints, opts.seed);
  if (mode === 'iptables') {
    const rep = new IptablesProxier(state, { clusterCIDR: c.clusterCIDR }).sync();
    const t = timeTool(ns, 'iptables-restore', ['--test'], rep.text);
    if (!t.ok) {
      rec.skip('iptables-restore --test', t.err || 'failed', { mode, size });
      return;
    }
    rec.figure(
      'real tool',
      { 'wall ms': round(t.ms), bytes: rep.bytes },
      { mode: `${mode}: iptables-restore --test`, size },
    );
    return;
  }
  if (mode === 'nftables') {
    const r = new NftablesProxier(state, {
      clusterCIDR: c.clusterCIDR,
      serviceCIDRs: [c.serviceCIDR],
    }).sync();
    const file = join(dir, `full-${size}.nft`);
    writeFileSync(file, r.text);
    const check = timeTool(ns, 'nft', ['-c', '-f', file]);
    if (!check.ok) {
      rec.skip('nft -c -f', check.err || 'failed', { mode, size });
      return;
    }
    rec.figure(
      'real tool',
      { 'wall ms': round(check.ms), bytes: r.stats.bytes },
      { mode: `${mode}: nft -c -f`, size },
    );
    spawnSync('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'ip', 'kube-proxy']);
    const load = timeTool(ns, 'nft', ['-f', file]);
    if (load.ok)
      rec.figure(
        'real tool',
        { 'wall ms': round(load.ms), bytes: r.stats.bytes },
        { mode: `${mode}: nft -f (load)`, size },
      );
    else rec.skip('real tool', load.err, { mode: `${mode}: nft -f (load)`, size });
    spawnSync('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'ip', 'kube-proxy']);
    return;
  }
  const r = new IpvsProxier(state, { clusterCIDR: c.clusterCIDR }).sync();
  spawnSync('ip', ['netns', 'exec', ns, 'ipset', 'destroy']);
  const ipset = timeTool(ns, 'ipset', ['restore'], r.ipset);
  if (ipset.ok)
    rec.figure(
      'real tool',
      { 'wall ms': round(ipset.ms), bytes: r.counts.bytes.ipset, entries: r.counts.ipsetEntries },
      { mode: `${mode}: ipset restore`, size },
    );
  else rec.skip('real tool', ipset.err, { mode: `${mode}: ipset restore`, size });
  const ipt = timeTool(ns, 'iptables-restore', ['--test'], r.iptables);
  if (ipt.ok)
    rec.figure(
      'real tool',
      { 'wall ms': round(ipt.ms), bytes: r.counts.bytes.iptables },
      { mode: `${mode}: iptables-restore --test`, size },
    );
  else rec.skip('real tool', ipt.err, { mode: `${mode}: iptables-restore --test`, size });
  const probe = timeTool(ns, 'ipvsadm', ['-L', '-n']);
  if (!probe.ok)
    rec.skip(
      'real tool',
      `ipvsadm -R: ${probe.err || 'ip_vs unavailable'} (the ip_vs kernel module is not available in this kernel)`,
      { mode: `${mode}: ipvsadm -R`, size },
    );
  else {
    const t = timeTool(ns, 'ipvsadm', ['-R'], r.ipvsadm);
    if (t.ok)
      rec.figure(
        'real tool',
        { 'wall ms': round(t.ms), bytes: r.counts.bytes.ipvsadm },
        { mode: `${mode}: ipvsadm -R`, size },
      );
    else rec.skip('real tool', t.err, { mode: `${mode}: ipvsadm -R`, size });
    spawnSync('ip', ['netns', 'exec', ns, 'ipvsadm', '-C']);
  }
  spawnSync('ip', ['netns', 'exec', ns, 'ipset', 'destroy']);
}

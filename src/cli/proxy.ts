// `kubesim proxy render`: the rules kube-proxy would program on one node, from manifests.
import { type Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import type { EndpointSlice, Service } from '../api/types.js';
import { CliError, UsageError } from './errors.js';
import { rejectKubeconfig } from './flags.js';
import { addOutputOptions, BASE_FORMATS, emit, type Format, isStructured, structured } from './output.js';
import { progress } from './progress.js';
import { table } from '../report/table.js';
import {
  loadProxyObjects,
  proxyNodeFromNode,
  ProxyInputError,
  ProxyModelError,
  ProxyState,
  type IPFamily,
  type ProxyNode,
} from '../proxy/model/index.js';
import {
  availableModes,
  loadRenderer,
  type Proxier,
  type ProxySyncResult,
} from '../proxy/renderers/index.js';
import { sortIptablesRules } from '../proxy/renderers/iptables/normalize.js';
import { generateServices, changeOneEndpoint, type GeneratedServices } from '../proxy/gen.js';
import { Rng } from '../util/rng.js';

interface InputOpts {
  mode: string;
  cluster?: string[];
  kubeconfig?: string;
  generate?: string;
  seed: string;
  update?: string[];
  delete?: string[];
  churn?: string;
  node?: string;
  clusterCidr?: string;
  masqueradeAll?: boolean;
  family: string;
  randomFully: boolean;
  nfacct: boolean;
  localhostNodeports: boolean;
  nodeportAddresses?: string;
  masqueradeBit?: string;
}

interface RenderOpts extends InputOpts {
  output: Format;
  out?: string;
  /** former spelling: print the summary (in --format) besides writing the rules to --out */
  stats?: boolean;
  format?: 'table' | 'json';
  sorted?: boolean;
  repeat: string;
  progress: boolean;
}

interface CheckOpts extends InputOpts {
  backend: 'nft' | 'legacy' | 'all';
  apply?: boolean;
  output: Format;
  out?: string;
  /** former spelling of -o */
  format?: 'table' | 'json';
}

export function register(program: Command): void {
  const proxy = program
    .command('proxy')
    .description("kube-proxy's rules for a cluster: iptables, ipvs or nftables");
  const render = proxy
    .command('render')
    .description(
      'Render the rules kube-proxy would load on one node for the Services, EndpointSlices and Nodes in the given\n' +
        'manifests (YAML/JSON, multi-document, kind: List, or kubectl get -o yaml|json output). The first sync is a\n' +
        'full sync; with --update, the objects in those files are applied as watch events and the partial sync that\n' +
        'follows is printed too. iptables output is exactly the iptables-restore input kube-proxy writes.',
    );
  addInputOptions(render)
    .option('--sorted', "normalise iptables output the way kube-proxy's unit tests do (sortIPTablesRules)")
    .option(
      '--repeat <n>',
      'render the full sync N more times (forced full resyncs) and report min/median render time',
      '0',
    )
    .option('--no-progress', 'no progress on stderr')
    .addOption(new Option('--stats').hideHelp())
    .addOption(new Option('--format <format>').choices(['table', 'json']).hideHelp());
  addOutputOptions(render, ['rules', ...BASE_FORMATS])
    .addHelpText(
      'after',
      `
Modes available here: ${availableModes().join(', ')}

-o rules (the default) prints the ruleset; -o table|wide|json|yaml print a summary per sync
(chains, rules, bytes; wide: every counter of the mode) instead.

Examples:
  kubesim proxy render --cluster cluster.yaml --node node-1 --cluster-cidr 10.244.0.0/16
  kubesim proxy render --generate 1000x10 -o table
  kubesim proxy render --generate 10000x10 --churn 1 --repeat 5 -o table
  kubesim proxy render --cluster before.yaml --update after.yaml --node node-1 --out rules.txt`,
    )
    .action(async (o: RenderOpts) => {
      await renderCommand(o);
    });

  const check = proxy
    .command('check')
    .description(
      'Feed the iptables rules kubesim renders to the real iptables-restore inside a throwaway network namespace\n' +
        '(created and deleted by this command; needs root). Reports whether each backend accepts them and how long\n' +
        'loading takes. Without --apply it runs iptables-restore --test; with --apply it loads the full sync (and the\n' +
        'partial sync of --update) with --noflush as kube-proxy does, then times iptables-save and reports its size.',
    );
  addInputOptions(check)
    .addOption(
      new Option('--backend <backend>', 'iptables backend').choices(['nft', 'legacy', 'all']).default('all'),
    )
    .option(
      '--apply',
      'really load the rules into the namespace (kube-proxy: iptables-restore --noflush --counters)',
    )
    .addOption(new Option('--format <format>').choices(['table', 'json']).hideHelp());
  addOutputOptions(check)
    .addHelpText(
      'after',
      `
Example:
  sudo kubesim proxy check --generate 1000x10 --apply`,
    )
    .action(async (o: CheckOpts) => {
      await checkCommand(o);
    });
}

function addInputOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--mode <mode>', 'proxy mode').default('iptables'))
    .option('--cluster <manifests...>', 'manifest files or directories with Services, EndpointSlices, Nodes')
    .option(
      '--kubeconfig <file>',
      'read the cluster from a live API server (not supported yet: capture a snapshot with kubectl and pass --cluster)',
    )
    .option(
      '--generate <NxM>',
      'instead of manifests: a seeded synthetic cluster of N services x M endpoints, e.g. 1000x10',
    )
    .option('--seed <n>', 'seed for --generate', '1')
    .option(
      '--update <manifests...>',
      'then apply these objects as updates (adds/replaces by name) and render the partial sync',
    )
    .option(
      '--delete <manifests...>',
      'then delete the Services/EndpointSlices named in these files (with or after --update) and render the partial sync',
    )
    .option(
      '--churn <n>',
      'with --generate: then replace n pods (one endpoint each, seeded) and render the partial sync',
    )
    .option(
      '--node <name>',
      'the node kube-proxy runs on (default: the first Node in the manifests); decides Local policies',
    )
    .option(
      '--cluster-cidr <cidr>',
      'pod CIDR(s), comma-separated (detect-local-mode ClusterCIDR); without it no "! -s CIDR" masquerade rules',
    )
    .option('--masquerade-all', 'SNAT all traffic sent to cluster IPs (kube-proxy --masquerade-all)')
    .addOption(
      new Option('--family <family>', 'IP family of the proxier').choices(['IPv4', 'IPv6']).default('IPv4'),
    )
    .option('--masquerade-bit <n>', 'iptables.masqueradeBit (default 14, mark 0x00004000)')
    .option(
      '--nodeport-addresses <list>',
      'comma-separated CIDRs or "primary" (kube-proxy --nodeport-addresses); default all',
    )
    .option('--no-random-fully', 'iptables without MASQUERADE --random-fully support')
    .option('--no-nfacct', 'kernel without nfacct: no -m nfacct counter rules')
    .option('--no-localhost-nodeports', 'iptables.localhostNodePorts=false');
}

interface Run {
  node: ProxyNode;
  services: number;
  slices: number;
  outputs: ProxySyncResult[];
  /** re-render a forced full sync (for --repeat) */
  rerenderFull(): ProxySyncResult;
}

/** Loads the input, feeds it to a ProxyState and runs the full sync (and the --update partial sync). */
/** Steps run() reports, for progress: the input loaded, then each sync. */
function runSteps(o: InputOpts): number {
  return 2 + (o.update || o.delete ? 1 : 0) + (o.churn && Number(o.churn) > 0 ? 1 : 0);
}

async function run(o: InputOpts, onStep: (what: string) => void = () => {}): Promise<Run> {
  rejectKubeconfig(o);
  if (!o.cluster && !o.generate) throw new UsageError('give --cluster <manifests...> or --generate NxM');
  if (o.cluster && o.generate) throw new UsageError('--cluster and --generate are mutually exclusive');
  const family = o.family as IPFamily;

  let services: Service[],
    slices: EndpointSlice[],
    node: ProxyNode,
    clusterCIDR = o.clusterCidr;
  let generated: GeneratedServices | undefined;
  const churn = o.churn === undefined ? 0 : Number(o.churn);
  if (!Number.isInteger(churn) || churn < 0)
    throw new UsageError(`--churn must be a whole number, got "${o.churn}"`);
  if (churn > 0 && !o.generate) throw new UsageError('--churn needs --generate (for manifests use --update)');
  try {
    if (o.generate) {
      const m = /^(\d+)x(\d+)$/.exec(o.generate);
      if (!m) throw new UsageError(`--generate must look like 1000x10, got "${o.generate}"`);
      const seed = Number(o.seed);
      if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got "${o.seed}"`);
      const g = generateServices({ services: Number(m[1]), endpoints: Number(m[2]), seed });
      generated = g;
      services = g.services;
      slices = g.endpointSlices;
      node = { name: o.node ?? g.nodeName, ips: { IPv4: '192.168.0.10' } };
      clusterCIDR ??= g.clusterCIDR;
    } else {
      const objs = await loadProxyObjects(o.cluster!);
      services = objs.services;
      slices = objs.endpointSlices;
      const nodes = [...objs.nodes].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
      if (o.node) {
        const n = nodes.find((x) => x.metadata.name === o.node);
        node = n ? proxyNodeFromNode(n) : { name: o.node };
      } else if (nodes.length) {
        node = proxyNodeFromNode(nodes[0]);
      } else {
        node = { name: '' };
      }
    }
  } catch (e) {
    if (e instanceof ProxyInputError) throw new CliError(e.message);
    throw e;
  }

  let renderer;
  try {
    renderer = await loadRenderer(o.mode);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const options: Record<string, unknown> = {
    clusterCIDR,
    masqueradeAll: !!o.masqueradeAll,
    randomFully: o.randomFully,
    nfacct: o.nfacct,
    localhostNodePorts: o.localhostNodeports,
  };
  if (o.masqueradeBit !== undefined) {
    const bit = Number(o.masqueradeBit);
    if (!Number.isInteger(bit) || bit < 0 || bit > 31)
      throw new UsageError(`--masquerade-bit must be an integer 0-31, got "${o.masqueradeBit}"`);
    options.masqueradeBit = bit;
  }
  if (o.nodeportAddresses)
    options.nodePortAddresses = o.nodeportAddresses
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);

  onStep(`${services.length} services loaded`);
  const state = new ProxyState(node, family);
  const outputs: ProxySyncResult[] = [];
  let syncer: Proxier;
  try {
    for (const x of services) state.onServiceAdd(x);
    for (const x of slices) state.onEndpointSliceAdd(x);
    syncer = renderer.createProxier(state, options);
    outputs.push(syncer.sync());
    onStep('full sync');
    if (o.update || o.delete) {
      const byKey = <T extends { metadata: { namespace?: string; name?: string } }>(xs: T[]) =>
        new Map(xs.map((x) => [`${x.metadata.namespace ?? 'default'}/${x.metadata.name}`, x]));
      const curSvcs = byKey(services),
        curSlices = byKey(slices);
      const key = (x: { metadata: { namespace?: string; name?: string } }) =>
        `${x.metadata.namespace ?? 'default'}/${x.metadata.name}`;
      if (o.update) {
        const upd = await loadProxyObjects(o.update);
        for (const x of upd.services) {
          const prev = curSvcs.get(key(x));
          if (prev) state.onServiceUpdate(prev, x);
          else state.onServiceAdd(x);
          curSvcs.set(key(x), x);
        }
        for (const x of upd.endpointSlices) {
          const prev = curSlices.get(key(x));
          if (prev) state.onEndpointSliceUpdate(prev, x);
          else state.onEndpointSliceAdd(x);
          curSlices.set(key(x), x);
        }
      }
      if (o.delete) {
        const del = await loadProxyObjects(o.delete);
        for (const x of del.services) {
          const prev = curSvcs.get(key(x));
          if (!prev) throw new CliError(`--delete: Service ${key(x)} is not in the cluster`);
          state.onServiceDelete(prev);
        }
        for (const x of del.endpointSlices) {
          const prev = curSlices.get(key(x));
          if (!prev) throw new CliError(`--delete: EndpointSlice ${key(x)} is not in the cluster`);
          state.onEndpointSliceDelete(prev);
        }
      }
      outputs.push(syncer.sync());
      onStep('partial sync');
    }
    if (churn > 0 && generated) {
      const rng = new Rng(Number(o.seed) + 1);
      for (let i = 0; i < churn; i++) {
        const before = generated.endpointSlices.slice();
        const ch = changeOneEndpoint(generated, rng);
        state.onEndpointSliceUpdate(before[ch.sliceIndex], ch.slice);
      }
      outputs.push(syncer.sync());
      onStep('churn sync');
    }
  } catch (e) {
    if (e instanceof ProxyModelError || e instanceof ProxyInputError || e instanceof TypeError)
      throw new CliError(e.message);
    throw e;
  }
  const rerenderFull = () => {
    // a throw-away proxier over the same state renders a full sync, as kube-proxy's forced resync does
    return renderer.createProxier(state, options).sync();
  };
  return { node, services: services.length, slices: slices.length, outputs, rerenderFull };
}

async function renderCommand(o: RenderOpts): Promise<void> {
  const repeat = Number(o.repeat);
  if (!Number.isInteger(repeat) || repeat < 0)
    throw new UsageError(`--repeat must be a whole number, got "${o.repeat}"`);
  const bar = progress('proxy render', o.progress);
  const total = runSteps(o) + repeat;
  let step = 0;
  const r = await run(o, (what) => bar.update(++step, total, what)).catch((e) => {
    bar.finish();
    throw e;
  });
  const outputs = r.outputs;

  const rulesText = () =>
    outputs
      .map((out) => {
        let t = out.text;
        if (o.sorted && o.mode === 'iptables') t = sortIptablesRules(t);
        const header = outputs.length > 1 ? `# kubesim: ${out.kind} sync\n` : '';
        const extra = (out.artifacts ?? []).map((a) => `# kubesim: ${a.name}\n${a.text}`).join('');
        return header + t + extra;
      })
      .join('');

  const times: number[] = [];
  const cpuTimes: number[] = [];
  try {
    for (let i = 0; i < repeat; i++) {
      const st = r.rerenderFull().stats;
      times.push(st.renderMs ?? Number.NaN);
      cpuTimes.push(st.renderCpuMs ?? Number.NaN);
      bar.update(++step, total, `full re-render ${i + 1}/${repeat}`);
    }
  } finally {
    bar.finish();
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const mid = Math.floor(times.length / 2);
  const repeatInfo =
    repeat > 0
      ? {
          repeats: repeat,
          fullRenderMsMin: times[0],
          fullRenderMsMedian: times[mid],
          fullRenderCpuMsMin: cpuTimes[0],
          fullRenderCpuMsMedian: cpuTimes[mid],
        }
      : undefined;
  const summary = {
    mode: o.mode,
    node: r.node.name,
    services: r.services,
    endpointSlices: r.slices,
    syncs: outputs.map((out, i) => ({ sync: i + 1, kind: out.kind, ...out.stats })),
    ...(repeatInfo ? { repeat: repeatInfo } : {}),
  };
  const summaryText = (format: Format) => {
    if (isStructured(format)) return structured(format, summary);
    // table: the counters every mode has; wide: every counter of this mode
    const first = ['sync', 'kind', 'chains', 'rules', 'bytes'];
    const keys = [...first, ...Object.keys(outputs[0].stats).filter((k) => !first.includes(k))];
    let text = `mode ${o.mode}, node "${r.node.name}", ${r.services} services, ${r.slices} endpoint slices\n`;
    text += table(
      keys.map((k) => ({ header: k, wide: !first.includes(k) && !k.startsWith('render') })),
      summary.syncs.map((row) => keys.map((k) => String((row as Record<string, unknown>)[k] ?? ''))),
      { wide: format === 'wide' },
    );
    if (repeatInfo)
      text +=
        `full re-render x${repeat}: wall min ${repeatInfo.fullRenderMsMin.toFixed(1)} ms, median ${repeatInfo.fullRenderMsMedian.toFixed(1)} ms; ` +
        `CPU min ${repeatInfo.fullRenderCpuMsMin.toFixed(1)} ms, median ${repeatInfo.fullRenderCpuMsMedian.toFixed(1)} ms\n`;
    return text;
  };

  if (o.stats) {
    // the former spelling: rules to --out (if given), the summary to stdout
    if (o.out) emit(o, rulesText());
    process.stdout.write(summaryText(o.format ?? 'table'));
    return;
  }
  emit(o, o.output === 'rules' ? rulesText() : summaryText(o.output));
  if (o.output === 'rules' && repeatInfo) process.stderr.write(summaryText('table'));
}

interface CheckRow {
  backend: string;
  sync: number;
  kind: string;
  bytes: number;
  ok: boolean;
  restoreMs: number;
  /** user+sys CPU of iptables-restore (GNU time) */
  restoreCpuMs?: number;
  saveBytes?: number;
  saveMs?: number;
  error?: string;
  note?: string;
}

async function checkCommand(o: CheckOpts): Promise<void> {
  if (o.mode !== 'iptables')
    throw new UsageError(
      'proxy check supports --mode iptables (ipvs/nftables have their own oracles in their tests)',
    );
  if (process.platform !== 'linux')
    throw new CliError('proxy check needs Linux (network namespaces and iptables)');
  if (process.getuid?.() !== 0)
    throw new CliError(
      'proxy check needs root: it creates a network namespace for the real iptables-restore',
    );
  if (o.apply && o.nfacct) {
    // kube-proxy drops the -m nfacct matches when it cannot create the counters; without the nfacct
    // tool or netlink access here the counters cannot be created, so loading must run without them
    process.stderr.write(
      'kubesim: --apply: rendering without -m nfacct (counters cannot be created in the namespace)\n',
    );
    o.nfacct = false;
  }
  const r = await run(o);
  const family = o.family as IPFamily;
  const prefix = family === 'IPv6' ? 'ip6tables' : 'iptables';
  const backends = o.backend === 'all' ? ['nft', 'legacy'] : [o.backend];
  const ns = `kubesim-check-${process.pid}`;
  const add = spawnSync('ip', ['netns', 'add', ns], { encoding: 'utf8' });
  if (add.status !== 0)
    throw new CliError(`ip netns add ${ns} failed: ${(add.stderr || String(add.error)).trim()}`);
  const rows: CheckRow[] = [];
  try {
    for (const b of backends) {
      const restore = `${prefix}-${b}-restore`;
      const save = `${prefix}-${b}-save`;
      r.outputs.forEach((out, i) => {
        if (!o.apply && out.kind === 'partial') {
          // a partial sync jumps to chains only the earlier syncs created; --test on an empty
          // namespace cannot resolve them (legacy fails, nft does not check), so test it loaded
          rows.push({
            backend: restore,
            sync: i + 1,
            kind: out.kind,
            bytes: out.stats.bytes,
            ok: true,
            restoreMs: NaN,
            note: 'partial: needs the full sync loaded, use --apply',
          });
          return;
        }
        const args = o.apply ? ['--noflush', '--counters'] : ['--test'];
        // CPU time (user+sys) of iptables-restore itself, via GNU time when present: on a busy
        // machine wall time mostly measures waiting for a core
        const timed = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', 'KUBESIM_TIME %e %U %S'] : [];
        const t0 = performance.now();
        const res = spawnSync('ip', ['netns', 'exec', ns, ...timed, restore, ...args], {
          input: Buffer.from(out.text),
          encoding: 'utf8',
          maxBuffer: 1 << 30,
        });
        const restoreMs = performance.now() - t0;
        const ok = res.status === 0;
        const stderr = (res.stderr ?? '').split('\n');
        const tline = stderr.find((l) => l.startsWith('KUBESIM_TIME '));
        const row: CheckRow = {
          backend: restore,
          sync: i + 1,
          kind: out.kind,
          bytes: out.stats.bytes,
          ok,
          restoreMs: Math.round(restoreMs),
        };
        if (tline) {
          const [, , user, sys] = tline.split(' ').map(Number);
          row.restoreCpuMs = Math.round((user + sys) * 1000);
        }
        const errText = stderr
          .filter((l) => !l.startsWith('KUBESIM_TIME ') && !l.startsWith('Command exited with'))
          .join('\n')
          .trim();
        if (!ok)
          row.error = (errText || String(res.error ?? `exit ${res.status}`))
            .split('\n')
            .slice(0, 3)
            .join(' | ');
        if (ok && o.apply) {
          const s0 = performance.now();
          const sv = spawnSync('ip', ['netns', 'exec', ns, save], { encoding: 'buffer', maxBuffer: 1 << 30 });
          row.saveMs = Math.round(performance.now() - s0);
          row.saveBytes = sv.stdout?.length ?? 0;
        }
        rows.push(row);
      });
    }
  } finally {
    spawnSync('ip', ['netns', 'del', ns]);
  }
  const format = o.format ?? o.output;
  if (isStructured(format)) {
    emit(
      o,
      structured(format, {
        node: r.node.name,
        services: r.services,
        endpointSlices: r.slices,
        apply: !!o.apply,
        results: rows,
      }),
    );
  } else {
    let text = `${r.services} services, ${r.slices} endpoint slices, node "${r.node.name}", ${o.apply ? 'loaded with --noflush' : 'iptables-restore --test'}\n`;
    const keys = [
      'backend',
      'sync',
      'kind',
      'bytes',
      'ok',
      'restoreMs',
      'restoreCpuMs',
      ...(o.apply ? ['saveMs', 'saveBytes'] : []),
    ];
    const fmt = (v: unknown) => (typeof v === 'number' && Number.isNaN(v) ? '-' : String(v ?? ''));
    text += table(
      keys.map((k) => ({ header: k, wide: k === 'restoreCpuMs' })),
      rows.map((row) => keys.map((k) => fmt((row as unknown as Record<string, unknown>)[k]))),
      { wide: format === 'wide' },
    );
    for (const row of rows) if (row.error) text += `${row.backend} sync ${row.sync}: ${row.error}\n`;
    for (const row of rows) if (row.note) text += `${row.backend} sync ${row.sync}: ${row.note}\n`;
    emit(o, text);
  }
  if (rows.some((x) => !x.ok)) process.exitCode = 1;
}

// `kubesim proxy render`: the rules kube-proxy would program on one node, from manifests.
import { Command, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { CliError } from './errors.js';
import { json, table } from './output.js';
import {
  loadProxyObjects, proxyNodeFromNode, ManifestError, ProxyModelError, ProxyState,
  type IPFamily, type ProxyNode,
} from '../proxy/model/index.js';
import { availableModes, loadRenderer, type ProxyRenderOutput } from '../proxy/renderers/index.js';
import { sortIptablesRules } from '../proxy/renderers/iptables/normalize.js';
import { generateCluster } from '../proxy/gen.js';

interface RenderOpts {
  mode: string;
  cluster?: string[];
  generate?: string;
  seed: string;
  update?: string[];
  node?: string;
  clusterCidr?: string;
  masqueradeAll?: boolean;
  family: string;
  output?: string;
  stats?: boolean;
  format: string;
  sorted?: boolean;
  randomFully: boolean;
  nfacct: boolean;
  localhostNodeports: boolean;
  nodeportAddresses?: string;
  masqueradeBit?: string;
}

export function register(program: Command): void {
  const proxy = program.command('proxy').description("kube-proxy's rules for a cluster: iptables, ipvs or nftables");
  proxy
    .command('render')
    .description(
      'Render the rules kube-proxy would load on one node for the Services, EndpointSlices and Nodes in the given\n' +
      'manifests (YAML/JSON, multi-document, kind: List, or kubectl get -o yaml|json output). The first sync is a\n' +
      'full sync; with --update, the objects in those files are applied as watch events and the partial sync that\n' +
      'follows is printed too. iptables output is exactly the iptables-restore input kube-proxy writes.')
    .addOption(new Option('--mode <mode>', 'proxy mode').default('iptables'))
    .option('--cluster <manifests...>', 'manifest files or directories with Services, EndpointSlices, Nodes')
    .option('--generate <NxM>', 'instead of manifests: a seeded synthetic cluster of N services x M endpoints, e.g. 1000x10')
    .option('--seed <n>', 'seed for --generate', '1')
    .option('--update <manifests...>', 'then apply these objects as updates (adds/replaces by name) and render the partial sync')
    .option('--node <name>', "the node kube-proxy runs on (default: the first Node in the manifests); decides Local policies")
    .option('--cluster-cidr <cidr>', 'pod CIDR(s), comma-separated (detect-local-mode ClusterCIDR); without it no "! -s CIDR" masquerade rules')
    .option('--masquerade-all', 'SNAT all traffic sent to cluster IPs (kube-proxy --masquerade-all)')
    .addOption(new Option('--family <family>', 'IP family of the proxier').choices(['IPv4', 'IPv6']).default('IPv4'))
    .option('--masquerade-bit <n>', 'iptables.masqueradeBit (default 14, mark 0x00004000)')
    .option('--nodeport-addresses <list>', 'comma-separated CIDRs or "primary" (kube-proxy --nodeport-addresses); default all')
    .option('--no-random-fully', 'iptables without MASQUERADE --random-fully support')
    .option('--no-nfacct', 'kernel without nfacct: no -m nfacct counter rules')
    .option('--no-localhost-nodeports', 'iptables.localhostNodePorts=false')
    .option('-o, --output <file>', 'write the ruleset to FILE instead of stdout')
    .option('--stats', 'print a summary (chains, rules, bytes per sync) instead of the ruleset (with -o: as well)')
    .addOption(new Option('--format <format>', 'summary format').choices(['table', 'json']).default('table'))
    .option('--sorted', "normalise iptables output the way kube-proxy's unit tests do (sortIPTablesRules)")
    .addHelpText('after', `
Modes available here: ${availableModes().join(', ')}

Examples:
  kubesim proxy render --cluster cluster.yaml --node node-1 --cluster-cidr 10.244.0.0/16
  kubesim proxy render --generate 1000x10 --stats
  kubesim proxy render --cluster before.yaml --update after.yaml --node node-1 -o rules.txt --stats`)
    .action(async (o: RenderOpts) => {
      await renderCommand(o);
    });
}

async function renderCommand(o: RenderOpts): Promise<void> {
  if (!o.cluster && !o.generate) throw new CliError('give --cluster <manifests...> or --generate NxM');
  if (o.cluster && o.generate) throw new CliError('--cluster and --generate are mutually exclusive');
  const family = o.family as IPFamily;

  let services, slices, node: ProxyNode, clusterCIDR = o.clusterCidr;
  try {
    if (o.generate) {
      const m = /^(\d+)x(\d+)$/.exec(o.generate);
      if (!m) throw new CliError(`--generate must look like 1000x10, got "${o.generate}"`);
      const seed = Number(o.seed);
      if (!Number.isInteger(seed)) throw new CliError(`--seed must be an integer, got "${o.seed}"`);
      const g = generateCluster({ services: Number(m[1]), endpoints: Number(m[2]), seed });
      services = g.services;
      slices = g.endpointSlices;
      node = { name: o.node ?? g.nodeName, ips: { IPv4: '192.168.0.10' } };
      clusterCIDR ??= g.clusterCIDR;
    } else {
      const objs = loadProxyObjects(o.cluster!);
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
    if (e instanceof ManifestError) throw new CliError(e.message);
    throw e;
  }

  let renderer;
  try { renderer = await loadRenderer(o.mode); } catch (e) { throw new CliError((e as Error).message); }
  const options: Record<string, unknown> = {
    family,
    clusterCIDR,
    masqueradeAll: !!o.masqueradeAll,
    randomFully: o.randomFully,
    nfacct: o.nfacct,
    localhostNodePorts: o.localhostNodeports,
  };
  if (o.masqueradeBit !== undefined) {
    const bit = Number(o.masqueradeBit);
    if (!Number.isInteger(bit) || bit < 0 || bit > 31) throw new CliError(`--masquerade-bit must be an integer 0-31, got "${o.masqueradeBit}"`);
    options.masqueradeBit = bit;
  }
  if (o.nodeportAddresses) options.nodePortAddresses = o.nodeportAddresses.split(',').map((s) => s.trim()).filter(Boolean);

  const state = new ProxyState(node, family);
  const outputs: ProxyRenderOutput[] = [];
  try {
    for (const s of services) state.onServiceAdd(s);
    for (const s of slices) state.onEndpointSliceAdd(s);
    const syncer = renderer.createSyncer(state, options);
    outputs.push(syncer.sync());
    if (o.update) {
      const upd = loadProxyObjects(o.update);
      const byKey = <T extends { metadata: { namespace?: string; name?: string } }>(xs: T[]) =>
        new Map(xs.map((x) => [`${x.metadata.namespace ?? 'default'}/${x.metadata.name}`, x]));
      const oldSvcs = byKey(services), oldSlices = byKey(slices);
      for (const s of upd.services) {
        const prev = oldSvcs.get(`${s.metadata.namespace}/${s.metadata.name}`);
        if (prev) state.onServiceUpdate(prev, s); else state.onServiceAdd(s);
      }
      for (const s of upd.endpointSlices) {
        const prev = oldSlices.get(`${s.metadata.namespace}/${s.metadata.name}`);
        if (prev) state.onEndpointSliceUpdate(prev, s); else state.onEndpointSliceAdd(s);
      }
      outputs.push(syncer.sync());
    }
  } catch (e) {
    if (e instanceof ProxyModelError || e instanceof ManifestError || e instanceof TypeError) throw new CliError(e.message);
    throw e;
  }

  const rulesText = outputs.map((r) => {
    let t = r.text;
    if (o.sorted && o.mode === 'iptables') t = sortIptablesRules(t);
    const header = outputs.length > 1 ? `# kubesim: ${r.kind} sync\n` : '';
    const extra = (r.artifacts ?? []).map((a) => `# kubesim: ${a.name}\n${a.text}`).join('');
    return header + t + extra;
  }).join('');

  if (o.output) {
    try { writeFileSync(o.output, rulesText); } catch (e) { throw new CliError(`${o.output}: cannot write: ${(e as Error).message}`); }
  } else if (!o.stats) {
    process.stdout.write(rulesText);
  }
  if (o.stats) {
    const rows = outputs.map((r, i) => ({ sync: i + 1, ...r.stats, kind: r.kind }));
    if (o.format === 'json') {
      process.stdout.write(json({ mode: o.mode, node: node.name, services: services.length, endpointSlices: slices.length, syncs: rows }));
    } else {
      const keys = ['sync', 'kind', 'chains', 'rules', 'bytes', ...Object.keys(outputs[0].stats).filter((k) => !['chains', 'rules', 'bytes'].includes(k))];
      process.stdout.write(`mode ${o.mode}, node "${node.name}", ${services.length} services, ${slices.length} endpoint slices\n`);
      process.stdout.write(table(keys, rows.map((r) => keys.map((k) => String((r as Record<string, unknown>)[k] ?? '')))));
    }
  }
}

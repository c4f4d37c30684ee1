// `kubesim proxy render --all-nodes`: every node's full sync (each node runs its own kube-proxy
// and each renders a different ruleset), rendered in a worker pool (src/proxy/all-nodes.ts).
//
// Where the rules go, as a user of one-node renders expects them:
//   --out DIR   one file per node, DIR/<node>.rules, each byte for byte what
//               `proxy render --node <node> --out FILE` writes (DIR is created if missing)
//   stdout      one stream: "# kubesim: node <node>" before each node's rules, nodes by name
//   -o table|wide|json|yaml   a summary row per node (and family) instead of the rules
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type NodeRuleset, renderAllNodes } from '../proxy/all-nodes.js';
import { table } from '../report/table.js';
import { LIMITS } from '../util/limits.js';
import { CliError, UsageError } from './errors.js';
import { emit, emitChunks, type Format, isStructured, structured } from './output.js';
import { progress } from './progress.js';
import { type InputOpts, prepare, warn } from './proxy-input.js';
import { rulesChunks } from './proxy-rules.js';

export interface AllNodesOpts extends InputOpts {
  output: Format;
  out?: string;
  sorted?: boolean;
  repeat: string;
  stats?: boolean;
  threads?: string;
  progress: boolean;
}

/** Flags that describe one node or its later syncs: meaningless when every node renders. */
const ONE_NODE_FLAGS: { flag: string; given: (o: AllNodesOpts) => boolean }[] = [
  { flag: '--node', given: (o) => o.node !== undefined },
  { flag: '--node-ip', given: (o) => o.nodeIp !== undefined },
  { flag: '--node-addresses', given: (o) => o.nodeAddresses !== undefined },
  { flag: '--node-pod-cidrs', given: (o) => o.nodePodCidrs !== undefined },
  { flag: '--update', given: (o) => o.update !== undefined },
  { flag: '--delete', given: (o) => o.delete !== undefined },
  { flag: '--churn', given: (o) => o.churn !== undefined },
  { flag: '--repeat', given: (o) => o.repeat !== '0' },
  { flag: '--stats', given: (o) => !!o.stats },
];

/** --threads: 1 (the calling thread) to the limit; default: available cores */
export function threadsOf(o: { threads?: string }): number | undefined {
  if (o.threads === undefined) return undefined;
  const n = Number(o.threads);
  if (!Number.isInteger(n) || n < 1 || n > LIMITS.threads)
    throw new UsageError(`--threads must be a whole number 1-${LIMITS.threads}, got "${o.threads}"`);
  return n;
}

/** A node name as a file name: Kubernetes node names are DNS subdomains; refuse anything else. */
function fileNameOf(node: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(node))
    throw new CliError(`--all-nodes --out: node name "${node}" cannot be a file name`);
  return `${node}.rules`;
}

export async function allNodesCommand(o: AllNodesOpts, cmd: Command): Promise<void> {
  for (const f of ONE_NODE_FLAGS)
    if (f.given(o)) throw new UsageError(`${f.flag} renders one node; it cannot be used with --all-nodes`);
  const threads = threadsOf(o);
  const bar = progress('proxy render --all-nodes', o.progress);
  try {
    const p = await prepare(o, cmd, true);
    if (p.nodes.length === 0)
      throw new CliError('--all-nodes: the manifests have no Node objects (give Nodes, or --node <name>)');
    const sortIptables = !!o.sorted && p.mode === 'iptables';
    const rules = o.output === 'rules';
    const dir = rules ? o.out : undefined;
    if (dir) makeDir(dir);
    const rows: Record<string, unknown>[] = [];
    let first: NodeRuleset | undefined;
    const nodes = renderAllNodes(
      { mode: p.mode, families: p.families, services: p.services, slices: p.slices, options: p.options },
      p.nodes,
      { threads, onNode: (done, total, node) => bar.update(done, total, `node ${node}`) },
    );
    for await (const r of nodes) {
      first ??= r;
      if (rules) {
        const outputs = r.families.map((f) => ({
          family: f.family,
          result: {
            kind: f.kind,
            get text() {
              return Buffer.from(f.bytes).toString();
            },
            chunks: () => [f.bytes],
            artifacts: f.artifacts,
          },
        }));
        const chunks = rulesChunks(outputs, sortIptables);
        if (dir) emitChunks({ out: join(dir, fileNameOf(r.node)) }, chunks);
        else emitChunks({}, [Buffer.from(`# kubesim: node ${r.node}\n`), ...chunks]);
      }
      for (const f of r.families)
        rows.push({ node: r.node, ...(p.families.length > 1 ? { family: f.family } : {}), ...f.stats });
    }
    if (first?.invalid.length) {
      const msgs = first.invalid.map((e) => {
        const at = p.sources.get(e.object);
        return at ? `${at}: ${e.message}` : e.message;
      });
      warn(
        `skipped ${msgs.length} invalid object(s), as kube-proxy's own checks skip them: ${msgs.join('; ')}`,
      );
    }
    if (!rules) emit(o, summary(o.output, p.mode, p.services.length, p.nodes.length, rows));
  } catch (e) {
    if (e instanceof TypeError) throw new UsageError(e.message);
    throw e;
  } finally {
    bar.finish();
  }
}

function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new CliError(`--out ${dir}: cannot create the directory: ${(e as Error).message}`);
  }
  if (!statSync(dir).isDirectory()) throw new CliError(`--out ${dir}: not a directory`);
}

function summary(
  format: Format,
  mode: string,
  services: number,
  nodes: number,
  rows: Record<string, unknown>[],
): string {
  if (isStructured(format)) return structured(format, { mode, services, nodes: rows });
  const first = ['node', ...('family' in (rows[0] ?? {}) ? ['family'] : []), 'chains', 'rules', 'bytes'];
  const keys = [...first, ...Object.keys(rows[0] ?? {}).filter((k) => !first.includes(k))];
  return (
    `mode ${mode}, ${services} services, ${nodes} nodes\n` +
    table(
      keys.map((k) => ({ header: k, wide: !first.includes(k) })),
      rows.map((row) => keys.map((k) => String(row[k] ?? ''))),
      { wide: format === 'wide' },
    )
  );
}

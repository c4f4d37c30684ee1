// `kubesim proxy render`: the rules kube-proxy would program on one node, from manifests.
import { LIMITS } from '../util/limits.js';
import { type Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { CliError, UsageError } from './errors.js';
import {
  addOutputOptions,
  BASE_FORMATS,
  emit,
  emitChunks,
  type Format,
  isStructured,
  openOutput,
  structured,
} from './output.js';
import { progress } from './progress.js';
import { addInputOptions, type InputOpts, run, runSteps } from './proxy-input.js';
import { table } from '../report/table.js';
import { availableModes } from '../proxy/renderers/index.js';
import { rulesChunks } from './proxy-rules.js';
import { allNodesCommand } from './proxy-all-nodes.js';

interface RenderOpts extends InputOpts {
  output: Format;
  out?: string;
  /** former spelling: print the summary (in --format) besides writing the rules to --out */
  stats?: boolean;
  format?: 'table' | 'json';
  sorted?: boolean;
  repeat: string;
  progress: boolean;
  allNodes?: boolean;
  threads?: string;
}

/** modes whose proxiers take ProxierOptions.stream */
const STREAMED_MODES = ['iptables', 'nftables', 'ipvs'];

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
    .option(
      '--all-nodes',
      "render every node's full sync (each node's local endpoints and addresses) in a worker pool; see below",
    )
    .option('--threads <n>', '--all-nodes: worker threads (1: no workers); default: available cores')
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

--all-nodes renders the full sync of every Node in the manifests (with --generate NxMxK: node-0 …
node-K-1), each exactly as --node <name> renders it. With --out DIR it writes DIR/<node>.rules per
node; without --out one stream to stdout with "# kubesim: node <name>" before each node's rules;
-o table|json gives one summary row per node.

Examples:
  kubesim proxy render --cluster cluster.yaml --node node-1 --cluster-cidr 10.244.0.0/16
  kubesim proxy render --generate 1000x10 -o table
  kubesim proxy render --generate 10000x10 --churn 1 --repeat 5 -o table
  kubesim proxy render --cluster before.yaml --update after.yaml --node node-1 --out rules.txt
  kubesim proxy render --generate 2000x10x20 --all-nodes --out rules/`,
    )
    .action(async (o: RenderOpts, cmd: Command) => {
      await renderCommand(o, cmd);
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
  sudo kubesim proxy check --generate 500x10 --apply`,
    )
    .action(async (o: CheckOpts, cmd: Command) => {
      await checkCommand(o, cmd);
    });
}

async function renderCommand(o: RenderOpts, cmd: Command): Promise<void> {
  if (o.allNodes) return allNodesCommand(o, cmd);
  if (o.threads !== undefined) throw new UsageError('--threads is for --all-nodes');
  const repeat = Number(o.repeat);
  if (!Number.isInteger(repeat) || repeat < 0)
    throw new UsageError(`--repeat must be a whole number, got "${o.repeat}"`);
  if (repeat > LIMITS.syncSteps)
    throw new UsageError(
      `--repeat: ${repeat} is above the limit of ${LIMITS.syncSteps} (see "Limits" in the README)`,
    );
  const bar = progress('proxy render', o.progress);
  const total = runSteps(o) + repeat;
  let step = 0;
  // one full sync of one family, printed as it is: written to the output while it is rendered
  const streamed =
    o.output === 'rules' &&
    !o.stats &&
    !o.sorted &&
    o.family !== 'dual' &&
    runSteps(o) === 2 &&
    repeat === 0 &&
    STREAMED_MODES.includes(o.mode);
  const writer = streamed ? openOutput(o) : undefined;
  // one full sync and nothing after it: each input object is read once (a generated cluster is fed
  // one Service at a time, never held whole)
  const readOnce = runSteps(o) === 2 && repeat === 0;
  const r = await run(o, cmd, (what) => bar.update(++step, total, what), writer?.write, readOnce).catch(
    (e) => {
      bar.finish();
      writer?.abort();
      throw e;
    },
  );
  const outputs = r.syncs.flat();
  const dual = r.families.length > 1;

  const rules = () => rulesChunks(outputs, !!o.sorted && o.mode === 'iptables');

  const times: number[] = [];
  const cpuTimes: number[] = [];
  try {
    for (let i = 0; i < repeat; i++) {
      // one proxier per family: their render times add up
      const st = r.rerenderFull().map((x) => x.result.stats);
      times.push(st.reduce((a, x) => a + (x.renderMs ?? Number.NaN), 0));
      cpuTimes.push(st.reduce((a, x) => a + (x.renderCpuMs ?? Number.NaN), 0));
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
    families: r.families,
    node: r.node.name,
    services: r.services,
    endpointSlices: r.slices,
    syncs: r.syncs.flatMap((sync, i) =>
      sync.map(({ family, result }) => ({
        sync: i + 1,
        ...(dual ? { family } : {}),
        kind: result.kind,
        ...result.stats,
      })),
    ),
    ...(repeatInfo ? { repeat: repeatInfo } : {}),
  };
  const summaryText = (format: Format) => {
    if (isStructured(format)) return structured(format, summary);
    // table: the counters every mode has; wide: every counter of this mode
    const first = ['sync', ...(dual ? ['family'] : []), 'kind', 'chains', 'rules', 'bytes'];
    const keys = [...first, ...Object.keys(outputs[0].result.stats).filter((k) => !first.includes(k))];
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
    if (o.out) emitChunks(o, rules());
    process.stdout.write(summaryText(o.format ?? 'table'));
    return;
  }
  if (writer) {
    // the text is out; what follows it (artifacts) is written as an unstreamed render writes it
    for (const c of rules()) writer.write(c);
    writer.commit();
  } else if (o.output === 'rules') emitChunks(o, rules());
  else emit(o, summaryText(o.output));
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

async function checkCommand(o: CheckOpts, cmd: Command): Promise<void> {
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
  const r = await run(o, cmd);
  const backends = o.backend === 'all' ? ['nft', 'legacy'] : [o.backend];
  const ns = `kubesim-check-${process.pid}`;
  const add = spawnSync('ip', ['netns', 'add', ns], { encoding: 'utf8' });
  if (add.status !== 0)
    throw new CliError(`ip netns add ${ns} failed: ${(add.stderr || String(add.error)).trim()}`);
  const rows: CheckRow[] = [];
  try {
    for (const b of backends) {
      r.syncs.forEach((sync, i) =>
        sync.forEach(({ family, result: out }) => {
          const prefix = family === 'IPv6' ? 'ip6tables' : 'iptables';
          const restore = `${prefix}-${b}-restore`;
          const save = `${prefix}-${b}-save`;
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
            const sv = spawnSync('ip', ['netns', 'exec', ns, save], {
              encoding: 'buffer',
              maxBuffer: 1 << 30,
            });
            row.saveMs = Math.round(performance.now() - s0);
            row.saveBytes = sv.stdout?.length ?? 0;
          }
          rows.push(row);
        }),
      );
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

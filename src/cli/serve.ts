/**
 * `kubesim serve`: the simulated cluster over the Kubernetes REST API on 127.0.0.1, so kubectl
 * and client libraries talk to it unchanged. Runs until SIGINT / SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ManifestError, loadManifests } from '../api/manifest.js';
import { warnMissingPriorityClasses } from './inputs.js';
import { loadScenario } from '../sim/scenario.js';
import type { Scenario } from '../sim/scenario-types.js';
import { ScenarioError, parseDuration } from '../util/scenario-input.js';
import { kubeconfig } from '../server/kubeconfig.js';
import { OPTIONAL_VERSIONS } from '../server/resources.js';
import { type ServedCluster, defaultScenario, serveCluster, snapshotScenario } from '../server/serve.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { packageRoot } from '../util/paths.js';
import { rejectKubeconfig } from './flags.js';
import { CliError } from './errors.js';
import { type EtcdCliOptions, addEtcdOptions, etcdServeOptions } from './serve-etcd-flags.js';

interface ServeCliOptions extends EtcdCliOptions {
  scenario?: string;
  cluster?: string[];
  port: string;
  speed: string;
  paused?: boolean;
  scheduler: boolean;
  kubeconfigOut?: string;
  kubeconfig?: string;
  tls?: boolean;
  seed?: string;
  bookmarkInterval: string;
  minRequestTimeout: string;
  verbose?: boolean;
  etcdCompactionInterval: string;
  runtimeConfig?: string;
}

/**
 * kube-apiserver's --runtime-config (`group/version[=true|false],…`), for the group versions v1.34
 * leaves off by default: the group versions to serve besides the default ones.
 */
function runtimeConfig(v: string | undefined): string[] {
  const on = new Set<string>();
  for (const entry of (v ?? '').split(',').filter((e) => e.trim() !== '')) {
    const [key, value = 'true'] = entry.trim().split('=');
    if (!OPTIONAL_VERSIONS.includes(key))
      throw new CliError(
        `--runtime-config: "${key}" is not a group version kubesim turns on or off (it can: ${OPTIONAL_VERSIONS.join(', ')})`,
      );
    if (value !== 'true' && value !== 'false')
      throw new CliError(`--runtime-config: ${key}=${value}: expected true or false`);
    if (value === 'true') on.add(key);
    else on.delete(key);
  }
  return [...on];
}

function number(name: string, v: string, ok: (n: number) => boolean, what: string): number {
  const n = Number(v);
  if (!ok(n)) throw new CliError(`${name}: expected ${what}, got "${v}"`);
  return n;
}

export function register(program: Command): void {
  const cmd = program
    .command('serve')
    .description(
      'serve the simulated cluster over the Kubernetes API on 127.0.0.1 (kubectl, client libraries)',
    )
    .option('--scenario <file>', 'scenario to run behind the API (cluster, workloads, timeline; docs/sim.md)')
    .option(
      '--cluster <files...>',
      'cluster snapshot (`kubesim snapshot` or `kubectl get -o yaml` output, manifests, dirs)',
    )
    .option(
      '--kubeconfig <file>',
      "serve a live cluster's objects (not supported yet: capture them with kubesim snapshot and pass --cluster)",
    )
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '0')
    .option('--speed <x>', 'virtual seconds per wall second', '1')
    .option('--paused', 'start with the virtual clock stopped; step it with POST /kubesim/v1/clock?step=30s')
    .option('--no-scheduler', 'run no scheduler, so your own scheduler binds the pods')
    .option('--kubeconfig-out <file>', 'write a kubeconfig for this server (with --tls: its certificate too)')
    .option('--tls', 'serve HTTPS with a self-signed certificate made at start-up')
    .option('--seed <n>', 'seed for every random choice')
    .option('--bookmark-interval <d>', 'interval of watch bookmarks', '60s')
    .option(
      '--min-request-timeout <d>',
      "watches without timeoutSeconds end after d to 2d (kube-apiserver's flag; 0: never)",
      '1800s',
    )
    .option(
      '--runtime-config <list>',
      'group versions off by default to serve too, as kube-apiserver: resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true',
    )
    .option('-v, --verbose', 'log every request on stderr');
  addEtcdOptions(cmd)
    .addHelpText(
      'after',
      `
With neither --scenario nor --cluster the cluster is three 4-CPU nodes in three zones.
Examples:
  kubesim serve --cluster snapshot.yaml --kubeconfig-out kubeconfig
  export KUBECONFIG=$PWD/kubeconfig; kubectl get nodes
  kubesim serve --tls --kubeconfig-out kubeconfig   # HTTPS; the kubeconfig trusts its certificate
  kubesim serve --scenario examples/scenarios/node-failure-eviction.yaml --speed 10 --port 8080
  kubesim serve --etcd-servers http://127.0.0.1:2379   # durable: restart to resume the cluster
  kubesim serve --paused --no-scheduler --kubeconfig-out kc   # step: curl -X POST 'http://127.0.0.1:PORT/kubesim/v1/clock?step=10s'`,
    )
    .action(async (opts: ServeCliOptions) => {
      rejectKubeconfig(opts);
      if (opts.scenario && opts.cluster) throw new CliError('--scenario and --cluster: give one of them');
      const port = number(
        '--port',
        opts.port,
        (n) => Number.isInteger(n) && n >= 0 && n < 65536,
        'a port number',
      );
      const speed = number('--speed', opts.speed, (n) => Number.isFinite(n) && n > 0, 'a number > 0');
      const seed =
        opts.seed === undefined ? undefined : number('--seed', opts.seed, Number.isInteger, 'an integer');
      const etcd = etcdServeOptions(opts);
      const enableVersions = runtimeConfig(opts.runtimeConfig);
      let bookmarkEveryMs: number;
      let minRequestTimeoutMs: number;
      let scenario: Scenario;
      try {
        bookmarkEveryMs = parseDuration(opts.bookmarkInterval, '--bookmark-interval');
        minRequestTimeoutMs = parseDuration(opts.minRequestTimeout, '--min-request-timeout');
        if (opts.scenario) scenario = loadScenario(opts.scenario);
        else if (opts.cluster) {
          const objs = await loadManifests(opts.cluster);
          warnMissingPriorityClasses(objs.map((o) => o.object));
          scenario = snapshotScenario(
            objs.map((o) => o.object),
            opts.cluster.join(' '),
          );
        } else scenario = defaultScenario();
      } catch (e) {
        if (e instanceof ScenarioError || e instanceof ManifestError) throw new CliError(e.message);
        throw e;
      }
      if (opts.scenario && scenario.timeline.length === 0 && scenario.durationMs)
        process.stderr.write(
          `kubesim serve: ${opts.scenario}: "duration" is not used by serve (it runs until stopped)\n`,
        );
      const version = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version as string;
      let served: ServedCluster;
      try {
        served = await serveCluster({
          scenario,
          port,
          speed,
          paused: opts.paused,
          noScheduler: !opts.scheduler,
          seed,
          version,
          bookmarkEveryMs,
          minRequestTimeoutMs,
          tls: opts.tls,
          enableVersions,
          ...etcd,
          onLeadershipLost: (m) => {
            // as kube-controller-manager: its components must not run on without the Lease
            process.stderr.write(`kubesim serve: ${m}\n`);
            process.exit(1);
          },
          onNotice: (m) => process.stderr.write(`kubesim serve: ${m}\n`),
          onRequest: opts.verbose
            ? (m, u, code, ms) => process.stderr.write(`${m} ${u} ${code} ${ms.toFixed(1)}ms\n`)
            : undefined,
        });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE') throw new CliError(`--port ${port}: address already in use`);
        throw new CliError(err.message);
      }
      if (opts.kubeconfigOut) {
        try {
          writeFileAtomic(opts.kubeconfigOut, kubeconfig(served.url, 'kubesim', served.caCert));
        } catch (e) {
          await served.close();
          throw new CliError(`--kubeconfig-out ${opts.kubeconfigOut}: ${(e as Error).message}`);
        }
      }
      process.stdout.write(
        `kubesim serve: ${served.url} (${served.sim.scenario.snapshotNodes.length + served.sim.scenario.pools.reduce((n, p) => n + p.count, 0)} nodes, speed ${speed}${opts.paused ? ', paused' : ''}${opts.scheduler ? '' : ', no scheduler'})` +
          (opts.kubeconfigOut ? `\nkubeconfig: ${opts.kubeconfigOut}` : '') +
          '\n',
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await served.close();
    });
}

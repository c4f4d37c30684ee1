/**
 * `kubesim serve`'s etcd flags, named as kube-apiserver names them (--etcd-servers), and the
 * leader-election flags of kube-controller-manager and kube-scheduler (--leader-elect…) that
 * decide which of several serves over one etcd runs the components (server/leader.ts).
 */
import type { Command } from 'commander';
import type { ServeOptions } from '../server/serve.js';
import { ScenarioError, parseDuration } from '../util/scenario-input.js';
import { CliError } from './errors.js';

export interface EtcdCliOptions {
  etcdServers?: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  leaderElect: string;
  leaderElectLeaseDuration: string;
  leaderElectRenewDeadline: string;
  leaderElectRetryPeriod: string;
}

export function addEtcdOptions(cmd: Command): Command {
  return cmd
    .option(
      '--etcd-servers <urls>',
      "keep the cluster in etcd (kube-apiserver's flag: comma-separated URLs); a restart resumes it (docs/server.md)",
    )
    .option(
      '--etcd-cafile <file>',
      'with https:// --etcd-servers: the CA to trust (default: the system roots)',
    )
    .option('--etcd-certfile <file>', 'with https:// --etcd-servers: client certificate (PEM)')
    .option('--etcd-keyfile <file>', 'with https:// --etcd-servers: key of --etcd-certfile (PEM)')
    .option(
      '--leader-elect <bool>',
      'with --etcd-servers: of several serves over one etcd only the Lease holder runs controllers, scheduler and kubelets',
      'true',
    )
    .option('--leader-elect-lease-duration <d>', 'how long a non-renewed Lease blocks the others', '15s')
    .option(
      '--leader-elect-renew-deadline <d>',
      'how long the leader retries renewing before it stops',
      '10s',
    )
    .option('--leader-elect-retry-period <d>', 'interval between acquire and renew attempts', '2s')
    .option(
      '--etcd-compaction-interval <d>',
      "with --etcd-servers: compact etcd to the revision seen one interval ago (kube-apiserver's flag; 0: never)",
      '5m',
    );
}

/** client-go leaderelection's JitterFactor: renewDeadline must exceed retryPeriod × this */
const JITTER_FACTOR = 1.2;

function duration(v: string, flag: string): number {
  try {
    return parseDuration(v, flag);
  } catch (e) {
    if (e instanceof ScenarioError) throw new CliError(e.message);
    throw e;
  }
}

/** The ServeOptions of the etcd flags; bad values are CliErrors naming the flag. */
export function etcdServeOptions(
  opts: EtcdCliOptions & { etcdCompactionInterval: string },
): Pick<ServeOptions, 'etcdServers' | 'etcdTls' | 'leaderElection' | 'etcdCompactionIntervalMs'> {
  const etcdServers = opts.etcdServers?.split(',').filter((u) => u !== '');
  if (!etcdServers?.length && (opts.etcdCafile || opts.etcdCertfile || opts.etcdKeyfile))
    throw new CliError('--etcd-cafile/--etcd-certfile/--etcd-keyfile: give --etcd-servers too');
  if (opts.leaderElect !== 'true' && opts.leaderElect !== 'false')
    throw new CliError(`--leader-elect: expected true or false, got "${opts.leaderElect}"`);
  const leaseDurationMs = duration(opts.leaderElectLeaseDuration, '--leader-elect-lease-duration');
  const renewDeadlineMs = duration(opts.leaderElectRenewDeadline, '--leader-elect-renew-deadline');
  const retryPeriodMs = duration(opts.leaderElectRetryPeriod, '--leader-elect-retry-period');
  // the checks of client-go's NewLeaderElector
  if (!(leaseDurationMs > renewDeadlineMs))
    throw new CliError('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline');
  if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs))
    throw new CliError(
      `--leader-elect-renew-deadline must be greater than --leader-elect-retry-period × ${JITTER_FACTOR}`,
    );
  return {
    etcdServers,
    etcdTls: { cafile: opts.etcdCafile, certfile: opts.etcdCertfile, keyfile: opts.etcdKeyfile },
    leaderElection:
      opts.leaderElect === 'false' ? false : { leaseDurationMs, renewDeadlineMs, retryPeriodMs },
    etcdCompactionIntervalMs: duration(opts.etcdCompactionInterval, '--etcd-compaction-interval'),
  };
}

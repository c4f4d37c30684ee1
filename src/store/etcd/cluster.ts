/**
 * Launches a throw-away etcd cluster of N members (Debian's /usr/bin/etcd) on 127.0.0.1: free
 * ports, a data directory per member, optionally TLS on the client URLs (server certificate +
 * client-certificate auth, as a kube-apiserver's etcd runs). For the tests of several `serve`
 * over one etcd and of a member dying under load: each member can be killed (SIGKILL, by its pid;
 * its data stays) and restarted on the same ports and data. `stop()` kills exactly the processes
 * it started and removes their data; the exit and signal hooks of launcher.ts cover them too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  EtcdNotFoundError,
  QUIET_LOG_ARGS,
  defaultDataParent,
  findEtcdBinary,
  freePort,
  healthy,
  trackChild,
  untrackChild,
} from './launcher.js';

export interface EtcdTlsFiles {
  /** CA that signed the server's and the clients' certificates (--trusted-ca-file) */
  caFile: string;
  /** the server certificate (SAN IP:127.0.0.1) and its key (--cert-file, --key-file) */
  certFile: string;
  keyFile: string;
  /** a client certificate for the health probe (client-certificate auth is on) */
  clientCertFile: string;
  clientKeyFile: string;
}

export interface EtcdClusterOptions {
  /** number of members (default 3) */
  members?: number;
  /** serve the client URLs over TLS with client-certificate auth */
  tls?: EtcdTlsFiles;
  /** how long to wait for every member's /health (default 30 s) */
  startTimeoutMs?: number;
  binary?: string;
}

export interface EtcdMember {
  name: string;
  /** client URL (https:// with tls) */
  endpoint: string;
  readonly pid: number;
  readonly running: boolean;
  /** SIGKILL by pid, keeping its data directory (a crash) */
  kill(): Promise<void>;
  /** start it again on the same ports and data; resolves once it is healthy */
  restart(): Promise<void>;
}

export interface LaunchedEtcdCluster {
  endpoints: string[];
  members: EtcdMember[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface MemberState {
  name: string;
  client: string;
  peer: string;
  dataDir: string;
  child?: ChildProcess;
  exited: Promise<void>;
  stderrTail: string;
}

/** Start the members together (they need each other for a quorum) and wait until all are healthy. */
export async function launchEtcdCluster(opts: EtcdClusterOptions = {}): Promise<LaunchedEtcdCluster> {
  const found = findEtcdBinary(opts.binary);
  if (!found.path) throw new EtcdNotFoundError(found.tried);
  const binary = found.path;
  const n = opts.members ?? 3;
  const scheme = opts.tls ? 'https' : 'http';
  const parent = defaultDataParent();
  const states: MemberState[] = [];
  for (let i = 0; i < n; i++) {
    const [c, p] = [await freePort(), await freePort()];
    states.push({
      name: `m${i}`,
      client: `${scheme}://127.0.0.1:${c}`,
      peer: `http://127.0.0.1:${p}`,
      dataDir: mkdtempSync(join(parent, 'kubesim-etcd-cluster-')),
      exited: Promise.resolve(),
      stderrTail: '',
    });
  }
  const initialCluster = states.map((s) => `${s.name}=${s.peer}`).join(',');
  const tlsArgs = opts.tls
    ? [
        '--cert-file',
        opts.tls.certFile,
        '--key-file',
        opts.tls.keyFile,
        '--client-cert-auth',
        '--trusted-ca-file',
        opts.tls.caFile,
      ]
    : [];

  const start = (s: MemberState) => {
    const args = [
      '--name',
      s.name,
      '--data-dir',
      s.dataDir,
      '--listen-client-urls',
      s.client,
      '--advertise-client-urls',
      s.client,
      '--listen-peer-urls',
      s.peer,
      '--initial-advertise-peer-urls',
      s.peer,
      '--initial-cluster',
      initialCluster,
      '--initial-cluster-token',
      `kubesim-${process.pid}`,
      '--initial-cluster-state',
      'new',
      '--experimental-watch-progress-notify-interval',
      '1s',
      ...QUIET_LOG_ARGS,
      ...tlsArgs,
    ];
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    s.child = child;
    s.stderrTail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (c: string) => (s.stderrTail = (s.stderrTail + c).slice(-4000)));
    if (child.pid !== undefined) trackChild(child.pid, s.dataDir);
    s.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  };
  const running = (s: MemberState) => !!s.child && s.child.exitCode === null && s.child.signalCode === null;

  const probeTls = opts.tls && {
    ca: readFileSync(opts.tls.caFile),
    cert: readFileSync(opts.tls.clientCertFile),
    key: readFileSync(opts.tls.clientKeyFile),
  };
  const waitHealthy = async (members: MemberState[]) => {
    const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
    for (;;) {
      const dead = members.find((s) => !running(s));
      if (dead) throw new Error(`etcd member ${dead.name} exited during start-up:\n${dead.stderrTail}`);
      const ok = await Promise.all(members.map((s) => healthy(s.client, probeTls)));
      if (ok.every(Boolean)) return;
      if (Date.now() > deadline)
        throw new Error(`etcd cluster not healthy within ${opts.startTimeoutMs ?? 30_000} ms`);
      await sleep(100);
    }
  };

  const kill = async (s: MemberState) => {
    if (!running(s)) return;
    process.kill(s.child!.pid!, 'SIGKILL');
    await s.exited;
    // the data directory stays for restart(); stop() removes it
    untrackChild(s.child!.pid!);
  };

  const stop = async () => {
    await Promise.all(states.map(kill));
    for (const s of states) rmSync(s.dataDir, { recursive: true, force: true });
  };

  for (const s of states) start(s);
  try {
    await waitHealthy(states);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    endpoints: states.map((s) => s.client),
    members: states.map((s) => ({
      name: s.name,
      endpoint: s.client,
      get pid() {
        return s.child?.pid ?? 0;
      },
      get running() {
        return running(s);
      },
      kill: () => kill(s),
      restart: async () => {
        if (running(s)) return;
        start(s);
        await waitHealthy([s]);
      },
    })),
    stop,
  };
}

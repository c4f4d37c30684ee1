/**
 * Launches a throw-away single-member etcd (Debian's /usr/bin/etcd, 3.4) on 127.0.0.1 with free
 * ports and a temporary data directory. Used by the etcd tests, the golden-trace recorder and the
 * store benchmark; `stop()` kills exactly the process it started and removes its data directory.
 *
 * While an etcd it started runs, the process also cleans up on its own way out: at exit, and on
 * SIGINT, SIGTERM or SIGHUP, each such etcd is killed by its pid and its data directory removed;
 * the signal then takes its default course (the process ends by it, exit status 128+n) unless the
 * program has listeners of its own. With no etcd running, no signal listener is installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Options of {@link launchEtcd}. */
export interface LaunchEtcdOptions {
  /** etcd binary; default env KUBESIM_ETCD_BIN, else `etcd` found on PATH, else /usr/bin/etcd */
  binary?: string;
  /**
   * Period of etcd's per-watcher progress notifications (`--experimental-watch-progress-notify-interval`).
   * Default "1s", so that traces with `sleep` ops finish quickly.
   */
  progressNotifyInterval?: string;
  /** how long to wait for /health to answer healthy; default 20 s */
  startTimeoutMs?: number;
  /** parent of the temporary data directory; default /dev/shm when writable (no fsync cost), else os.tmpdir() */
  dataDirParent?: string;
  /** extra command-line flags appended after the defaults */
  extraArgs?: string[];
}

/** A running etcd started by {@link launchEtcd}. */
export interface LaunchedEtcd {
  /** client URL, e.g. `http://127.0.0.1:40123` */
  endpoint: string;
  pid: number;
  dataDir: string;
  /** etcd's version string as printed by `etcd --version` (e.g. "3.4.23") */
  version: string;
  /** the flags etcd was started with (for trace metadata) */
  args: string[];
  /** kill the process (SIGTERM, then SIGKILL after 3 s) and remove the data directory; idempotent */
  stop(): Promise<void>;
}

/** Thrown when no etcd binary exists; tests turn it into a skip (or a failure under KUBESIM_REQUIRE_ETCD=1). */
export class EtcdNotFoundError extends Error {
  constructor(readonly tried: string[]) {
    super(
      `etcd binary not found (tried ${tried.join(', ')}); install Debian's etcd-server or set KUBESIM_ETCD_BIN`,
    );
    this.name = 'EtcdNotFoundError';
  }
}

/**
 * Locates the etcd binary: `explicit`, else $KUBESIM_ETCD_BIN, else `etcd` on PATH, else
 * /usr/bin/etcd. A binary named explicitly or by the environment must exist: it is never
 * silently replaced by another etcd.
 */
export function findEtcdBinary(explicit?: string): { path?: string; tried: string[] } {
  const named = explicit || process.env.KUBESIM_ETCD_BIN;
  if (named) return existsSync(named) ? { path: named, tried: [named] } : { tried: [named] };
  const tried: string[] = [];
  const which = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const onPath = which.status === 0 ? which.stdout.trim() : '';
  tried.push('PATH');
  if (onPath && existsSync(onPath)) return { path: onPath, tried };
  tried.push('/usr/bin/etcd');
  if (existsSync('/usr/bin/etcd')) return { path: '/usr/bin/etcd', tried };
  return { tried };
}

/** `etcd --version` → "3.4.23" (or "unknown"). */
export function etcdVersion(binary: string): string {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const m = /etcd Version:\s*(\S+)/.exec(out.stdout ?? '');
  return m ? m[1]! : 'unknown';
}

/** A TCP port that was free a moment ago (bind to port 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** etcd logs errors only, on stderr (kept as the tail of a failed start-up) */
export const QUIET_LOG_ARGS = ['--logger', 'zap', '--log-outputs', 'stderr', '--log-level', 'error'];

/** Whether etcd's /health answers healthy; over https with the CA and client certificate given. */
export function healthy(endpoint: string, tls?: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<boolean> {
  return new Promise((resolve) => {
    const req = (tls ? httpsRequest : request)(`${endpoint}/health`, { timeout: 1000, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body)));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

/**
 * etcds launched by this process and not stopped yet (pid → data dir, whether the process has
 * exited), for {@link killLaunchedEtcds}. An etcd that exited by itself stays until stop() removed
 * its data dir: an etcd also receives a terminal's Ctrl-C and may exit before this process reacts.
 */
const live = new Map<number, { dataDir: string; exited: boolean }>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let exitHookInstalled = false;

export function trackChild(pid: number, dataDir: string): void {
  live.set(pid, { dataDir, exited: false });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killLaunchedEtcds);
  }
  if (live.size === 1) for (const sig of SIGNALS) process.on(sig, onSignal);
}

export function untrackChild(pid: number): void {
  if (!live.delete(pid) || live.size > 0) return;
  for (const sig of SIGNALS) process.removeListener(sig, onSignal);
}

function onSignal(sig: NodeJS.Signals): void {
  killLaunchedEtcds();
  // the default action (end by the signal) unless the program listens to it itself
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}

/**
 * Kills (SIGKILL) every etcd this process launched that is still running and removes its data
 * directory, synchronously: what the exit and signal hooks do. `stop()` is the graceful way.
 */
export function killLaunchedEtcds(): void {
  for (const [pid, { dataDir, exited }] of [...live]) {
    if (!exited) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      waitGone(pid);
    }
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    untrackChild(pid);
  }
}

/** Block until a killed process has stopped running (a zombie or gone; Linux /proc), at most 2 s. */
function waitGone(pid: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 400; i++) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return; // gone, or no /proc
    }
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return;
    Atomics.wait(pause, 0, 0, 5);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function defaultDataParent(): string {
  try {
    const probe = mkdtempSync('/dev/shm/kubesim-probe-');
    rmSync(probe, { recursive: true, force: true });
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * Starts etcd and resolves once its /health endpoint reports healthy.
 * Retries once with fresh ports if the process dies during start-up (a port taken in between).
 */
export async function launchEtcd(opts: LaunchEtcdOptions = {}): Promise<LaunchedEtcd> {
  const found = findEtcdBinary(opts.binary);
  if (!found.path) throw new EtcdNotFoundError(found.tried);
  const binary = found.path;
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launchOnce(binary, opts);
    } catch (e) {
      lastErr = e;
    }
  }
  throw lastErr;
}

async function launchOnce(binary: string, opts: LaunchEtcdOptions): Promise<LaunchedEtcd> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(opts.dataDirParent ?? defaultDataParent(), 'kubesim-etcd-'));
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name',
    'kubesim',
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    client,
    '--advertise-client-urls',
    client,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `kubesim=${peer}`,
    '--initial-cluster-state',
    'new',
    '--experimental-watch-progress-notify-interval',
    opts.progressNotifyInterval ?? '1s',
    ...QUIET_LOG_ARGS,
    ...(opts.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (c: string) => {
    stderrTail = (stderrTail + c).slice(-4000);
  });
  let exited = false;
  if (child.pid !== undefined) trackChild(child.pid, dataDir);
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      const entry = child.pid !== undefined ? live.get(child.pid) : undefined;
      if (entry) entry.exited = true;
      resolve();
    }),
  );
  child.once('error', () => (exited = true));

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const timer = setTimeout(() => {
        if (!exited && child.pid !== undefined) {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        }
      }, 3000);
      await exitPromise;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (child.pid !== undefined) untrackChild(child.pid);
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`etcd exited during start-up (${binary} ${args.join(' ')}):\n${stderrTail}`);
    }
    if (await healthy(client)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `etcd did not become healthy within ${opts.startTimeoutMs ?? 20_000} ms:\n${stderrTail}`,
      );
    }
    await sleep(50);
  }
  return { endpoint: client, pid: child.pid!, dataDir, version: etcdVersion(binary), args, stop };
}

// Starts `kubesim serve` as a user would (the built CLI, a free loopback port, a kubeconfig file)
// and stops it by pid.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

export const cli = join(packageRoot(), 'dist', 'src', 'cli', 'index.js');
export const builtCli = existsSync(cli);

export interface ServeProcess {
  url: string;
  kubeconfig: string;
  dir: string;
  child: ChildProcess;
  /** what the process wrote on stderr so far */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `kubesim serve` and waits for it to print its URL and kubeconfig. The deadline is a hang
 * guard, not a speed check: at a load average of 25 on 2 CPUs a plain serve once took over 30 s
 * to print them (record.test.ts failed so in a full-suite run), so it is 180 s; the wait ends as
 * soon as the lines are printed. A serve that misses it is killed, not left running.
 */
export async function startServe(args: string[] = [], startTimeoutMs = 180_000): Promise<ServeProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-serve-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--kubeconfig-out', kubeconfig, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`kubesim serve did not start within ${startTimeoutMs} ms: ${err}`));
    }, startTimeoutMs);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /kubesim serve: (https?:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes('kubeconfig:')) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kubesim serve exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    kubeconfig,
    dir,
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        const exited = new Promise((r) => child.once('exit', r));
        try {
          process.kill(child.pid, 'SIGTERM');
          await exited;
        } catch {
          // killed by the test already (SIGKILL), not reaped yet
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** kubectl on PATH; in CI a missing kubectl fails the suite instead of skipping it. */
export function kubectlPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  if (p) return p;
  if (process.env.CI) throw new Error('kubectl is not installed (.ci/run installs kubernetes-client)');
  console.warn('skipping the kubectl tests: kubectl is not on PATH');
  return undefined;
}

/**
 * kubectl against a served cluster: `run` answers the exit code and output, `ok` the output or
 * throws with kubectl's stderr.
 */
export function kubectlAt(kubectl: string, kubeconfig: () => string) {
  const run = (...args: string[]) => {
    const r = spawnSync(kubectl, args, {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, KUBECONFIG: kubeconfig() },
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const ok = (...args: string[]) => {
    const r = run(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.err}`);
    return r.out;
  };
  return { run, ok };
}

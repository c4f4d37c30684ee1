/**
 * Test oracle helpers: run the real tools (nft, ipset, ipvsadm, iptables-restore) inside a network
 * namespace the test creates itself (kubesim-test-<pid>-<n>) and deletes afterwards, so nothing
 * touches the host's tables. Each helper reports *why* it cannot run (not root, tool missing,
 * kernel module missing) so tests can skip with a visible reason.
 */
import { execFileSync, spawnSync } from 'node:child_process';

let counter = 0;

export interface Netns {
  name: string;
  /** runs a command inside the namespace; stdin optional; returns {status, stdout, stderr} */
  run(cmd: string, args: string[], input?: string): { status: number; stdout: string; stderr: string };
  destroy(): void;
}

/** Creates a fresh namespace, or returns the reason it cannot. */
export function createNetns(): Netns | string {
  if (process.getuid?.() !== 0) return 'not running as root (network namespaces need CAP_SYS_ADMIN)';
  const name = `kubesim-test-${process.pid}-${counter++}`;
  const r = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (r.error) return `ip(8) not available: ${r.error.message}`;
  if (r.status !== 0) return `ip netns add failed: ${r.stderr.trim()}`;
  return {
    name,
    run(cmd, args, input) {
      const res = spawnSync('ip', ['netns', 'exec', name, cmd, ...args], {
        input,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      if (res.error) return { status: 127, stdout: '', stderr: res.error.message };
      return { status: res.status ?? 1, stdout: res.stdout, stderr: res.stderr };
    },
    destroy() {
      try {
        execFileSync('ip', ['netns', 'del', name]);
      } catch {
        /* already gone */
      }
    },
  };
}

/** Why a tool cannot be used in a namespace, or null when it works. */
export function probe(ns: Netns, cmd: string, args: string[], input?: string): string | null {
  const r = ns.run(cmd, args, input);
  if (r.status === 127) return `${cmd} not installed`;
  if (r.status !== 0)
    return `${cmd} ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().split('\n')[0]}`;
  return null;
}

/**
 * Runs `fn` in a namespace made for it and deleted afterwards; returns why it could not run
 * (`{ skip }`) or fn's result (`{ value }`).
 */
export function inFreshNetns<T>(fn: (ns: Netns) => T): { skip: string } | { value: T } {
  const ns = createNetns();
  if (typeof ns === 'string') return { skip: ns };
  try {
    return { value: fn(ns) };
  } finally {
    ns.destroy();
  }
}

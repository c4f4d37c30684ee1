/** Flags several commands share, read the same way everywhere. */
import type { Command } from 'commander';
import { UsageError } from './errors.js';

/**
 * `--kubeconfig`: reading a live cluster is not implemented; the option exists so the answer is a
 * clear message instead of "unknown option".
 */
export function addClusterOptions(cmd: Command, clusterHelp: string): Command {
  return cmd
    .option('--cluster <files...>', `${clusterHelp} (required)`)
    .option(
      '--kubeconfig <file>',
      'read the cluster from a live API server (not supported yet: capture it with kubesim snapshot and pass --cluster)',
    );
}

/** The --cluster files, after turning away --kubeconfig. */
export function clusterFiles(o: { cluster?: string[]; kubeconfig?: string }): string[] {
  rejectKubeconfig(o);
  if (!o.cluster?.length) throw new UsageError("required option '--cluster <files...>' not specified");
  return o.cluster;
}

/** --kernel and --seed, as every scheduling command reads them. */
export function kernelAndSeed(o: { kernel: string; seed: string }): { kernel: 'js' | 'wasm'; seed: number } {
  if (o.kernel !== 'js' && o.kernel !== 'wasm')
    throw new UsageError(`--kernel: unknown kernel "${o.kernel}" (expected js or wasm)`);
  const seed = Number(o.seed);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed: not an integer: "${o.seed}"`);
  return { kernel: o.kernel, seed };
}

/** An integer flag value ≥ min and, when given, ≤ max (one of util/limits.ts's LIMITS). */
export function intFlag(name: string, v: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name}: expected an integer >= ${min}, got "${v}"`);
  if (n > max)
    throw new UsageError(`${name}: ${n} is above the limit of ${max} (see "Limits" in the README)`);
  return n;
}

/** Turns away --kubeconfig (reading a live cluster is not implemented yet). */
export function rejectKubeconfig(o: { kubeconfig?: string }): void {
  if (o.kubeconfig !== undefined)
    throw new UsageError(
      `--kubeconfig ${o.kubeconfig}: reading a live cluster is not supported yet; capture a snapshot with ` +
        `\`kubesim snapshot --kubeconfig ${o.kubeconfig} --out snapshot.yaml\` and pass --cluster snapshot.yaml`,
    );
}

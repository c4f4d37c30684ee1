/**
 * The documented maximum of every count, size, duration and rate kubesim reads from input files or
 * flags (README "Limits"). Above one the answer is a clear error naming the input and the limit —
 * never a run that allocates until the machine gives up. The limits sit well above what the
 * simulator is built for (the benchmarks' largest clusters are 10k nodes, 50k services) and well
 * below what exhausts memory or time on an ordinary machine.
 */

export const LIMITS = {
  /** nodes in one cluster: a snapshot, a scenario's pools + generator, `demo --nodes`, what-ifs */
  nodes: 100_000,
  /** pods in one cluster or one run: a snapshot, burst/scale counts, plan --max, --replicas */
  pods: 1_000_000,
  /** Services kube-proxy renders (`proxy --generate N×M`, manifests) */
  services: 100_000,
  /** endpoints kube-proxy renders (N×M of --generate, the addresses of every EndpointSlice) */
  endpoints: 1_000_000,
  /** simulated time of one scenario, in ms (30 days) */
  durationMs: 30 * 24 * 3_600_000,
  /** the shortest metrics sample interval, in ms */
  minSampleEveryMs: 100,
  /** metric samples one run takes (duration / sampleEvery) */
  samples: 1_000_000,
  /** bytes in one input file (manifests, snapshots, scenarios) */
  fileBytes: 64 * 1024 * 1024,
  /** nesting depth of one YAML/JSON document (a CRD schema is under 40 levels) */
  depth: 100,
  /**
   * bytes of one string in a YAML/JSON document: kube-apiserver takes at most 3 MiB per request
   * (its MaxRequestBodyBytes) and etcd 1.5 MiB per object, so no stored object holds a longer one;
   * refused on the parser's tokens, before the YAML composer (≈40 bytes of heap per byte of a
   * quoted scalar) or JSON.parse builds it
   */
  stringBytes: 3 * 1024 * 1024,
  /** YAML alias dereferences per document (the `yaml` library's maxAliasCount: alias bombs) */
  aliases: 100,
  /** a scenario's API inflight limits (settings.maxRequestsInflight, maxMutatingInflight) */
  inflight: 1_000_000,
  /** settings.evictionRate, nodes per second */
  evictionRate: 10_000,
  /** sigma of a log-normal start-up latency (settings.latencies.*.sigma): e^3 ≈ 20× the median at 1σ */
  latencySigma: 3,
  /** simulation runs of one `compare-sim` (strategies × --seeds) */
  simRuns: 1000,
  /** worker threads (--threads) */
  threads: 256,
  /** a controller's worker count (settings.controllers.*.concurrentSyncs) */
  controllerWorkers: 10_000,
  /** runs of one sweep: grid points × seeds (`sweep --set … --seeds N`), and shards (--shards) */
  sweepRuns: 100_000,
  /** repeated partial syncs or churn steps in one proxy run (--repeat, --churn) */
  syncSteps: 100_000,
} as const;

/** An input above one of {@link LIMITS}. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

/**
 * `n` as a count of `what` (an integer in [min, max]); `where` names the input (a flag, a file and
 * field). @throws LimitError above `max`, and for a value that is no integer or is below `min`
 */
export function checkCount(where: string, n: unknown, max: number, min = 0): number {
  const v = typeof n === 'string' && n.trim() !== '' ? Number(n) : n;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new LimitError(`${where}: expected an integer >= ${min}, got ${JSON.stringify(n)}`);
  if (v > max)
    throw new LimitError(`${where}: ${v} is above the limit of ${max} (see "Limits" in the README)`);
  return v;
}

/** A duration in ms within [min, max]; `where` names the input. @throws LimitError */
export function checkDurationMs(where: string, ms: number, max: number, min = 0): number {
  if (!Number.isFinite(ms) || ms < min)
    throw new LimitError(`${where}: ${formatMs(ms)} is below the smallest allowed, ${formatMs(min)}`);
  if (ms > max)
    throw new LimitError(
      `${where}: ${formatMs(ms)} is above the limit of ${formatMs(max)} (see "Limits" in the README)`,
    );
  return ms;
}

function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms >= 86_400_000 && ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * The offset in JSON text where nesting first goes deeper than `max` (brackets outside strings),
 * or -1. Counted without recursion, before JSON.parse and anything recursive sees the value.
 */
export function jsonDepthExceeded(text: string, max: number, maxString = Infinity): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
      if (i - start - 1 > maxString) return start;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return i;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return -1;
}

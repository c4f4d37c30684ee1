// Shared by the tests of several `kubesim serve` over one etcd (serve-etcd-ha, serve-etcd-fault).

/** short election timings: lease 4 s, renew deadline 3 s, retry 0.5 s (a loaded CI machine renews late) */
export const ELECTION = [
  '--leader-elect-lease-duration',
  '4s',
  '--leader-elect-renew-deadline',
  '3s',
  '--leader-elect-retry-period',
  '500ms',
];

/** a Deployment "web" of `replicas` small nginx pods labelled app=web */
export function webDeployment(replicas: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] },
      },
    },
  };
}

/** the identity a serve announced as its own when it became the leader */
export const leaderOf = (stderr: string) => /leader election: (\S+) is the leader/.exec(stderr)?.[1];

/**
 * Polls `fn` until it answers; the deadline only guards against a hang (a saturated machine makes
 * every step slower), it is not what the test checks.
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

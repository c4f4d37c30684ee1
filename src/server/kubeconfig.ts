/**
 * A kubeconfig that points kubectl and client libraries at a `kubesim serve` endpoint, unchanged
 * clients included (no token: the server authorizes every request, as an insecure port does).
 * Over TLS the cluster entry carries the server's self-signed certificate as
 * `certificate-authority-data`, so clients verify the server without being told to skip it, and the
 * user carries a token the server never checks: client-go asks for a username on the terminal when
 * an https cluster's user has no credentials at all (clientcmd getUserIdentificationPartialConfig).
 * Over plain HTTP the cluster says `insecure-skip-tls-verify: true`, which kubectl ignores for an
 * http URL and `@kubernetes/client-node` requires before it talks to one at all.
 */
import { stringify } from 'yaml';

export function kubeconfig(server: string, name = 'kubesim', caCertPem?: string): string {
  const cluster: Record<string, string | boolean> = { server };
  if (caCertPem) cluster['certificate-authority-data'] = Buffer.from(caCertPem).toString('base64');
  else if (server.startsWith('http:')) cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: caCertPem ? { token: 'kubesim' } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/**
 * A kubeconfig that points kubectl and client libraries at a `kubesim serve` endpoint, unchanged
 * clients included (no token: the server authorizes every request, as an insecure port does).
 */
import { stringify } from 'yaml';

export function kubeconfig(server: string, name = 'kubesim'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/**
 * Well-known node labels and the failure-zone key built from them.
 *
 * upstream: staging/src/k8s.io/api/core/v1/well_known_labels.go (the label names) and
 * staging/src/k8s.io/component-helpers/node/topology/helpers.go (GetZoneKey), used alike by the
 * scheduler's spreading and the node lifecycle controller's per-zone eviction.
 */
import type { Node } from './types.js';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_FAILURE_DOMAIN_BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
/** the node pool a node of kubesim's belongs to (providers each name theirs; kubesim writes this) */
export const LABEL_NODE_POOL = 'node.kubernetes.io/pool';

/**
 * The well-known labels of a node kubesim makes (scenario pools, cluster-gen, the autoscaler's
 * template nodes), as its kubelet registers them (kubelet_node_status.go initialNode: hostname, os,
 * arch) with the cloud provider's region, zone and instance type: the one builder, so every made
 * node carries the same keys in the same order. Linux and amd64 unless told.
 */
export function wellKnownNodeLabels(n: {
  name: string;
  arch?: string;
  region?: string;
  zone?: string;
  instanceType?: string;
  pool?: string;
}): Record<string, string> {
  const l: Record<string, string> = {
    [LABEL_HOSTNAME]: n.name,
    [LABEL_OS]: 'linux',
    [LABEL_ARCH]: n.arch ?? 'amd64',
  };
  if (n.region !== undefined) l[LABEL_TOPOLOGY_REGION] = n.region;
  if (n.zone !== undefined) l[LABEL_TOPOLOGY_ZONE] = n.zone;
  if (n.instanceType !== undefined) l[LABEL_INSTANCE_TYPE] = n.instanceType;
  if (n.pool !== undefined) l[LABEL_NODE_POOL] = n.pool;
  return l;
}

/**
 * GetZoneKey: a string unique per failure zone, `region + ":\x00:" + zone`, or "" when the node
 * has neither label. The deprecated failure-domain.beta labels take precedence over the GA ones
 * when both are present, as upstream reads them first.
 *
 *   {topology.kubernetes.io/zone: a, topology.kubernetes.io/region: r}  → "r:\x00:a"
 *   {topology.kubernetes.io/zone: a, failure-domain.beta.kubernetes.io/zone: b}  → ":\x00:b"
 */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels;
  if (!l) return '';
  const zone = l[LABEL_FAILURE_DOMAIN_BETA_ZONE] ?? l[LABEL_TOPOLOGY_ZONE] ?? '';
  const region = l[LABEL_FAILURE_DOMAIN_BETA_REGION] ?? l[LABEL_TOPOLOGY_REGION] ?? '';
  if (region === '' && zone === '') return '';
  return region + ':\x00:' + zone;
}

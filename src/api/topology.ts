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

// GetZoneKey, table-tested with upstream's cases (Kubernetes v1.32:
// staging/src/k8s.io/component-helpers/node/topology/helpers_test.go Test_GetZoneKey).
import { describe, expect, it } from 'vitest';
import {
  LABEL_FAILURE_DOMAIN_BETA_REGION,
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_TOPOLOGY_REGION,
  LABEL_TOPOLOGY_ZONE,
  zoneKey,
} from '../../src/api/topology.js';
import type { Node } from '../../src/api/types.js';

const node = (labels: Record<string, string> | undefined): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n', labels },
});

describe('GetZoneKey (helpers_test.go)', () => {
  const cases: Array<[string, Record<string, string> | undefined, string]> = [
    ['has no zone or region keys', {}, ''],
    ['no labels at all', undefined, ''],
    [
      'has beta zone and region keys',
      { [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'zone1', [LABEL_FAILURE_DOMAIN_BETA_REGION]: 'region1' },
      'region1:\x00:zone1',
    ],
    [
      'has GA zone and region keys',
      { [LABEL_TOPOLOGY_ZONE]: 'zone1', [LABEL_TOPOLOGY_REGION]: 'region1' },
      'region1:\x00:zone1',
    ],
    [
      'has both beta and GA zone and region keys',
      {
        [LABEL_TOPOLOGY_ZONE]: 'zone1',
        [LABEL_TOPOLOGY_REGION]: 'region1',
        [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'zone1',
        [LABEL_FAILURE_DOMAIN_BETA_REGION]: 'region1',
      },
      'region1:\x00:zone1',
    ],
    [
      'has both beta and GA zone and region keys, beta labels take precedent',
      {
        [LABEL_TOPOLOGY_ZONE]: 'zone1',
        [LABEL_TOPOLOGY_REGION]: 'region1',
        [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'zone2',
        [LABEL_FAILURE_DOMAIN_BETA_REGION]: 'region2',
      },
      'region2:\x00:zone2',
    ],
    ['a zone without a region', { [LABEL_TOPOLOGY_ZONE]: 'zone1' }, ':\x00:zone1'],
  ];
  it.each(cases)('%s', (_name, labels, want) => {
    expect(zoneKey(node(labels))).toBe(want);
  });
});

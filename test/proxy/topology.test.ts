// CategorizeEndpoints table from kubernetes/kubernetes pkg/proxy/topology_test.go
// (TestCategorizeEndpoints), run against kubesim's categorizeEndpoints with the same checks:
// nil means "the service never uses this kind of endpoints"; hasAnyEndpoints must equal
// "allEndpoints non-empty or onlyRemoteEndpoints".
import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/api/types.js';
import {
  categorizeEndpoints,
  servicePortsFromService,
  type EndpointInfo,
  type ServicePortInfo,
} from '../../src/proxy/model/index.js';

type Svc = { internalPolicyLocal?: boolean; externalPolicyLocal?: boolean; nodePort?: number };
interface Ep {
  ep: string;
  zones?: string[];
  nodes?: string[];
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  isLocal?: boolean;
}
interface Case {
  name: string;
  zone?: string;
  nodeName?: string;
  svc: Svc;
  eps: Ep[];
  cluster: string[] | null;
  local: string[] | null;
  all?: string[];
  onlyRemote?: boolean;
  preferSameNode?: boolean;
}

/** A real Service whose port has the given BaseServicePortInfo fields. */
function servicePort(s: Svc): ServicePortInfo {
  const svc: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: 'svc' },
    spec: {
      clusterIP: '10.96.0.1',
      type: s.nodePort ? 'NodePort' : 'ClusterIP',
      ports: [{ port: 80, ...(s.nodePort ? { nodePort: s.nodePort } : {}) }],
      ...(s.internalPolicyLocal ? { internalTrafficPolicy: 'Local' as const } : {}),
      ...(s.externalPolicyLocal ? { externalTrafficPolicy: 'Local' as const } : {}),
    },
  };
  return [...servicePortsFromService(svc).values()][0];
}

function endpoint(e: Ep): EndpointInfo {
  const [ip, port] = e.ep.split(':');
  return {
    ip,
    port: Number(port),
    endpoint: e.ep,
    isLocal: !!e.isLocal,
    ready: !!e.ready,
    serving: !!e.serving,
    terminating: !!e.terminating,
    zoneHints: new Set(e.zones ?? []),
    nodeHints: new Set(e.nodes ?? []),
  };
}

const r = (ep: string, zones?: string[], extra: Partial<Ep> = {}): Ep => ({
  ep,
  zones,
  ready: true,
  ...extra,
});

const cases: Case[] = [
  {
    name: "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
    zone: 'zone-a',
    svc: {},
    eps: [
      r('10.1.2.3:80', ['zone-a']),
      r('10.1.2.4:80', ['zone-b']),
      r('10.1.2.5:80', ['zone-c']),
      r('10.1.2.6:80', ['zone-a']),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
    local: null,
  },
  {
    name: 'externalTrafficPolicy: Local, topology ignored for Local endpoints',
    zone: 'zone-a',
    svc: { externalPolicyLocal: true, nodePort: 8080 },
    eps: [
      r('10.1.2.3:80', ['zone-a'], { isLocal: true }),
      r('10.1.2.4:80', ['zone-b'], { isLocal: true }),
      r('10.1.2.5:80', ['zone-c']),
      r('10.1.2.6:80', ['zone-a']),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
    local: ['10.1.2.3:80', '10.1.2.4:80'],
    all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, topology ignored for Local endpoints',
    zone: 'zone-a',
    svc: { internalPolicyLocal: true, nodePort: 8080 },
    eps: [
      r('10.1.2.3:80', ['zone-a'], { isLocal: true }),
      r('10.1.2.4:80', ['zone-b'], { isLocal: true }),
      r('10.1.2.5:80', ['zone-c']),
      r('10.1.2.6:80', ['zone-a']),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
    local: ['10.1.2.3:80', '10.1.2.4:80'],
    all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'empty node labels',
    svc: {},
    eps: [r('10.1.2.3:80', ['zone-a'])],
    cluster: ['10.1.2.3:80'],
    local: null,
  },
  {
    name: 'empty zone label',
    zone: '',
    svc: {},
    eps: [r('10.1.2.3:80', ['zone-a'])],
    cluster: ['10.1.2.3:80'],
    local: null,
  },
  {
    name: 'node in different zone, no endpoint filtering',
    zone: 'zone-b',
    svc: {},
    eps: [r('10.1.2.3:80', ['zone-a'])],
    cluster: ['10.1.2.3:80'],
    local: null,
  },
  {
    name: 'unready endpoint',
    zone: 'zone-a',
    svc: {},
    eps: [
      r('10.1.2.3:80', ['zone-a']),
      r('10.1.2.4:80', ['zone-b']),
      r('10.1.2.5:80', ['zone-c']),
      r('10.1.2.6:80', ['zone-a'], { ready: false }),
    ],
    cluster: ['10.1.2.3:80'],
    local: null,
  },
  {
    name: 'only unready endpoints in same zone (should not filter)',
    zone: 'zone-a',
    svc: {},
    eps: [
      r('10.1.2.3:80', ['zone-a'], { ready: false }),
      r('10.1.2.4:80', ['zone-b']),
      r('10.1.2.5:80', ['zone-c']),
      r('10.1.2.6:80', ['zone-a'], { ready: false }),
    ],
    cluster: ['10.1.2.4:80', '10.1.2.5:80'],
    local: null,
  },
  {
    name: 'missing hints, no filtering applied',
    zone: 'zone-a',
    svc: {},
    eps: [
      r('10.1.2.3:80', ['zone-a']),
      r('10.1.2.4:80', ['zone-b']),
      r('10.1.2.5:80'),
      r('10.1.2.6:80', ['zone-a']),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'],
    local: null,
  },
  {
    name: 'multiple hints per endpoint, filtering includes any endpoint with zone included',
    zone: 'zone-c',
    svc: {},
    eps: [
      r('10.1.2.3:80', ['zone-a', 'zone-b', 'zone-c']),
      r('10.1.2.4:80', ['zone-b', 'zone-c']),
      r('10.1.2.5:80', ['zone-b', 'zone-d']),
      r('10.1.2.6:80', ['zone-c']),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
    local: null,
  },
  {
    name: 'conflicting topology and localness require merging allEndpoints',
    zone: 'zone-a',
    svc: { externalPolicyLocal: true, nodePort: 8080 },
    eps: [
      r('10.0.0.0:80', ['zone-a'], { isLocal: true }),
      r('10.0.0.1:80', ['zone-b'], { isLocal: true }),
      r('10.0.0.2:80', ['zone-a']),
      r('10.0.0.3:80', ['zone-b']),
    ],
    cluster: ['10.0.0.0:80', '10.0.0.2:80'],
    local: ['10.0.0.0:80', '10.0.0.1:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, with empty endpoints',
    svc: { internalPolicyLocal: true },
    eps: [],
    cluster: null,
    local: [],
  },
  {
    name: 'internalTrafficPolicy: Local, but all endpoints are remote',
    svc: { internalPolicyLocal: true },
    eps: [r('10.0.0.0:80'), r('10.0.0.1:80')],
    cluster: null,
    local: [],
    onlyRemote: true,
  },
  {
    name: 'internalTrafficPolicy: Local, all endpoints are local',
    svc: { internalPolicyLocal: true },
    eps: [r('10.0.0.0:80', undefined, { isLocal: true }), r('10.0.0.1:80', undefined, { isLocal: true })],
    cluster: null,
    local: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, some endpoints are local',
    svc: { internalPolicyLocal: true },
    eps: [r('10.0.0.0:80', undefined, { isLocal: true }), r('10.0.0.1:80')],
    cluster: null,
    local: ['10.0.0.0:80'],
  },
  {
    name: 'Cluster traffic policy, endpoints not Ready',
    svc: {},
    eps: [r('10.0.0.0:80', undefined, { ready: false }), r('10.0.0.1:80', undefined, { ready: false })],
    cluster: [],
    local: null,
  },
  {
    name: 'Cluster traffic policy, some endpoints are Ready',
    svc: {},
    eps: [r('10.0.0.0:80', undefined, { ready: false }), r('10.0.0.1:80')],
    cluster: ['10.0.0.1:80'],
    local: null,
  },
  {
    name: 'Cluster traffic policy, all endpoints are terminating',
    svc: {},
    eps: [
      r('10.0.0.0:80', undefined, { ready: false, serving: true, terminating: true, isLocal: true }),
      r('10.0.0.1:80', undefined, { ready: false, serving: true, terminating: true }),
    ],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: null,
  },
  {
    name: 'iTP: Local, eTP: Cluster, some endpoints local',
    svc: { internalPolicyLocal: true, nodePort: 8080 },
    eps: [r('10.0.0.0:80', undefined, { isLocal: true }), r('10.0.0.1:80')],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Cluster, eTP: Local, some endpoints local',
    svc: { externalPolicyLocal: true, nodePort: 8080 },
    eps: [r('10.0.0.0:80', undefined, { isLocal: true }), r('10.0.0.1:80')],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, some endpoints local',
    svc: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    eps: [r('10.0.0.0:80', undefined, { isLocal: true }), r('10.0.0.1:80')],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote',
    svc: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    eps: [r('10.0.0.0:80'), r('10.0.0.1:80')],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: [],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote and terminating',
    svc: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    eps: [
      r('10.0.0.0:80', undefined, { ready: false, serving: true, terminating: true }),
      r('10.0.0.1:80', undefined, { ready: false, serving: true, terminating: true }),
    ],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: [],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
    onlyRemote: true,
  },
  {
    name: 'iTP: Cluster, eTP: Local, with terminating endpoints',
    svc: { externalPolicyLocal: true, nodePort: 8080 },
    eps: [
      r('10.0.0.0:80'),
      r('10.0.0.1:80', undefined, { ready: false, serving: false, isLocal: true }),
      r('10.0.0.2:80', undefined, { ready: false, serving: true, terminating: true, isLocal: true }),
      r('10.0.0.3:80', undefined, { ready: false, serving: true, terminating: true }),
    ],
    cluster: ['10.0.0.0:80'],
    local: ['10.0.0.2:80'],
    all: ['10.0.0.0:80', '10.0.0.2:80'],
  },
  {
    name: 'externalTrafficPolicy ignored if not externally accessible',
    svc: { externalPolicyLocal: true },
    eps: [r('10.0.0.0:80'), r('10.0.0.1:80', undefined, { isLocal: true })],
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: null,
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'no cluster endpoints for iTP:Local internal-only service',
    svc: { internalPolicyLocal: true },
    eps: [r('10.0.0.0:80'), r('10.0.0.1:80', undefined, { isLocal: true })],
    cluster: null,
    local: ['10.0.0.1:80'],
    all: ['10.0.0.1:80'],
  },
  // PreferSameNode (node hints, feature PreferSameTrafficDistribution) — derived from topology.go's
  // topologyModeFromHints, not from the upstream table above.
  {
    name: 'node hints for this node win over zone hints',
    zone: 'zone-a',
    nodeName: 'node-a',
    svc: {},
    eps: [
      r('10.0.0.1:80', ['zone-a'], { nodes: ['node-a'] }),
      r('10.0.0.2:80', ['zone-a'], { nodes: ['node-b'] }),
      r('10.0.0.3:80', ['zone-b'], { nodes: ['node-c'] }),
    ],
    cluster: ['10.0.0.1:80'],
    local: null,
  },
  {
    name: 'node hints ignored with the feature gate off (zone hints used)',
    zone: 'zone-a',
    nodeName: 'node-a',
    svc: {},
    preferSameNode: false,
    eps: [
      r('10.0.0.1:80', ['zone-a'], { nodes: ['node-a'] }),
      r('10.0.0.2:80', ['zone-a'], { nodes: ['node-b'] }),
      r('10.0.0.3:80', ['zone-b'], { nodes: ['node-c'] }),
    ],
    cluster: ['10.0.0.1:80', '10.0.0.2:80'],
    local: null,
  },
  {
    name: 'node hints not naming this node fall back to zone hints',
    zone: 'zone-a',
    nodeName: 'node-z',
    svc: {},
    eps: [
      r('10.0.0.1:80', ['zone-a'], { nodes: ['node-a'] }),
      r('10.0.0.2:80', ['zone-b'], { nodes: ['node-b'] }),
    ],
    cluster: ['10.0.0.1:80'],
    local: null,
  },
];

describe('categorizeEndpoints (upstream TestCategorizeEndpoints)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const svc = servicePort(c.svc);
    const labels = c.zone === undefined ? {} : { 'topology.kubernetes.io/zone': c.zone };
    const res = categorizeEndpoints(c.eps.map(endpoint), svc, c.nodeName ?? 'test-node', labels, {
      preferSameTrafficDistribution: c.preferSameNode ?? true,
    });
    const names = (l: readonly EndpointInfo[] | null) =>
      l === null ? null : [...l].map((e) => e.endpoint).sort();
    if (c.cluster === null) expect(res.clusterEndpoints).toBeNull();
    else expect(names(res.clusterEndpoints) ?? []).toEqual([...c.cluster].sort());
    if (c.local === null) expect(res.localEndpoints).toBeNull();
    else expect(names(res.localEndpoints) ?? []).toEqual([...c.local].sort());
    const expectedAll =
      c.cluster !== null && c.local === null
        ? c.cluster
        : c.local !== null && c.cluster === null
          ? c.local
          : c.all!;
    expect(names(res.allReachableEndpoints)).toEqual([...expectedAll].sort());
    expect(res.hasAnyEndpoints).toBe(expectedAll.length > 0 || !!c.onlyRemote);
  });
});

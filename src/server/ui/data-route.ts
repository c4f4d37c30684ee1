/**
 * Two small kubesim-only answers for the /ui page, beside what the Kubernetes API already gives it:
 *
 *  - `GET /kubesim/v1/fragmentation?cpu=1&memory=2Gi`: per zone (`topology.kubernetes.io/zone`)
 *    and for the whole cluster, how many more pods of that shape fit by resources alone and how much
 *    free room is stranded — the fragmentation `kubesim plan` reports (src/capacity/fragmentation.ts,
 *    the same function), so the page never recomputes it its own way;
 *  - `GET /kubesim/v1/stats`: counters the watch cannot show, summed over the simulation's clients
 *    (the 429 answers `kubesim simulate` charts as "throttled");
 *  - `GET /kubesim/v1/node-summary`: one short row per node (zone, instance type, allocatable and
 *    requested CPU, memory and pods, NotReady / cordoned / tainted), requests summed by the one
 *    home of the rule (src/api/pod-requests.ts, through the scheduler's units). At 5,000 nodes it
 *    is ~0.5 MB where the node and pod lists are ~40 MB, so the page draws its first screen from it
 *    while the lists load; once they have, the page counts from the watch itself.
 *
 * The page degrades when either is missing (a real kube-apiserver answers 404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiServer } from '../../api/apiserver.js';
import { badRequest } from '../../api/errors.js';
import { tryParseQuantity } from '../../api/quantity.js';
import type { Node, Pod } from '../../api/types.js';
import { fragmentation } from '../../capacity/fragmentation.js';
import { nodeAllocatable, podRequests } from '../../scheduler/engine/resources.js';
import { sendJson } from '../respond.js';

export interface UiDataOptions {
  api: ApiServer;
  /** 429 answers the simulation's clients have had so far */
  tooManyRequests: () => number;
}

const ZONE = 'topology.kubernetes.io/zone';

/** A pod of the asked shape; a quantity that does not parse is a 400 naming the parameter. */
function shapeOf(q: URLSearchParams): Pod {
  const requests: Record<string, string> = {};
  for (const r of ['cpu', 'memory']) {
    const v = q.get(r);
    if (v === null || v === '') continue;
    const parsed = tryParseQuantity(v);
    if (typeof parsed === 'string') throw badRequest(`${r}: ${parsed}`);
    requests[r] = v;
  }
  if (!Object.keys(requests).length) throw badRequest('cpu or memory: Required value (the pod shape)');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'shape' },
    spec: { containers: [{ name: 'c', image: 'shape', resources: { requests } }] },
  } as Pod;
}

async function zoneFragmentation(api: ApiServer, shape: Pod): Promise<object> {
  const [nodes, pods] = await Promise.all([api.list<Node>('nodes'), api.list<Pod>('pods')]);
  const zones = new Map<string, Node[]>();
  for (const n of nodes.items) {
    const z = n.metadata.labels?.[ZONE] ?? '';
    let list = zones.get(z);
    if (!list) zones.set(z, (list = []));
    list.push(n);
  }
  const strip = (f: ReturnType<typeof fragmentation>) => {
    const { nodes: _perNode, ...rest } = f;
    return rest;
  };
  const all = fragmentation(nodes.items, pods.items, shape);
  return {
    shape: all.shape,
    cluster: strip(all),
    zones: Object.fromEntries(
      [...zones]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([z, ns]) => {
          const names = new Set(ns.map((n) => n.metadata.name));
          const zonePods = pods.items.filter((p) => p.spec.nodeName && names.has(p.spec.nodeName));
          return [z, strip(fragmentation(ns, zonePods, shape))];
        }),
    ),
  };
}

const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
/** node-summary flags */
const NOT_READY = 1;
const CORDONED = 2;
/** a NoSchedule/NoExecute taint other than the node lifecycle controller's own */
const TAINTED = 4;

async function nodeSummary(api: ApiServer): Promise<object> {
  const [nodes, pods] = await Promise.all([api.list<Node>('nodes'), api.list<Pod>('pods')]);
  const used = new Map<string, [number, number, number]>();
  for (const p of pods.items) {
    const n = p.spec.nodeName;
    if (!n || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    const r = podRequests(p);
    let u = used.get(n);
    if (!u) used.set(n, (u = [0, 0, 0]));
    u[0] += (r.get('cpu') ?? 0) / 1000;
    u[1] += r.get('memory') ?? 0;
    u[2] += 1;
  }
  const rows = nodes.items.map((n) => {
    const a = nodeAllocatable(n);
    const u = used.get(n.metadata.name!) ?? [0, 0, 0];
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const tainted = (n.spec?.taints ?? []).some(
      (t) => t.effect !== 'PreferNoSchedule' && !t.key.startsWith('node.kubernetes.io/'),
    );
    const flags = (ready ? 0 : NOT_READY) | (n.spec?.unschedulable ? CORDONED : 0) | (tainted ? TAINTED : 0);
    const labels = n.metadata.labels ?? {};
    return [
      n.metadata.name,
      labels[ZONE] ?? '',
      labels[INSTANCE_TYPE] ?? '',
      (a.get('cpu') ?? 0) / 1000,
      a.get('memory') ?? 0,
      a.get('pods') ?? 0,
      ...u,
      flags,
    ];
  });
  return {
    columns: [
      'name',
      'zone',
      'instanceType',
      'cpu',
      'memory',
      'pods',
      'cpuRequested',
      'memoryRequested',
      'podsRequested',
      'flags',
    ],
    flags: { notReady: NOT_READY, cordoned: CORDONED, tainted: TAINTED },
    nodes: rows,
  };
}

export function uiDataRoute(opts: UiDataOptions) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (req.method !== 'GET') return false;
    if (url.pathname === '/kubesim/v1/stats') {
      sendJson(res, 200, { tooManyRequests: opts.tooManyRequests() });
      return true;
    }
    if (url.pathname === '/kubesim/v1/node-summary') {
      sendJson(res, 200, await nodeSummary(opts.api));
      return true;
    }
    if (url.pathname === '/kubesim/v1/fragmentation') {
      sendJson(res, 200, await zoneFragmentation(opts.api, shapeOf(url.searchParams)));
      return true;
    }
    return false;
  };
}

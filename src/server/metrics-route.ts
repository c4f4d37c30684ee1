/**
 * metrics.k8s.io/v1beta1 for `kubectl top` (upstream: metrics-server's NodeMetrics and PodMetrics,
 * staging/src/k8s.io/metrics/pkg/apis/metrics/v1beta1/types.go): usage of every running pod's
 * containers, and of each node as the sum of its running pods.
 *
 * Simplified: a container uses what it requests (CPU and memory; nothing when it requests nothing),
 * the kubelet model's default for pods no `usage:` rule selects; the `usage:` curves of a scenario
 * are not read here. The window is metrics-server's default 30 s, ending now on the virtual clock.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiServer } from '../api/apiserver.js';
import { bytes, cpuMillis } from '../api/quantity.js';
import type { ResourceInfo } from '../api/registry.js';
import type { KubeObject } from '../api/types.js';
import { pathNotFound, sendJson } from './respond.js';

// biome-ignore lint/suspicious/noExplicitAny: pods are read field by field
type Obj = any;

const GV = 'metrics.k8s.io/v1beta1';
const PATH = /^\/apis\/metrics\.k8s\.io\/v1beta1(?:\/namespaces\/([^/]+))?\/(nodes|pods)(?:\/([^/]+))?\/?$/;

const info = (kind: string, resource: string, namespaced: boolean): ResourceInfo => ({
  kind,
  resource,
  singular: '',
  group: 'metrics.k8s.io',
  version: 'v1beta1',
  apiVersion: GV,
  versions: ['v1beta1'],
  namespaced,
  hasStatus: false,
  allowCreateOnUpdate: false,
  shortNames: [],
  categories: [],
  nameRule: 'subdomain',
  storageResource: resource,
  qualifiedResource: { name: resource, group: 'metrics.k8s.io' },
  qualifiedKind: { name: kind, group: 'metrics.k8s.io' },
});

/** What discovery lists for the metrics API (get and list only). */
export const METRICS_KINDS: ResourceInfo[] = [
  info('NodeMetrics', 'nodes', false),
  info('PodMetrics', 'pods', true),
];

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function containerUsage(c: Obj): { cpu: number; memory: number } {
  const r = c?.resources?.requests ?? {};
  return { cpu: r.cpu ? cpuMillis(r.cpu) : 0, memory: r.memory ? bytes(r.memory) : 0 };
}

const usageOf = (u: { cpu: number; memory: number }) => ({
  cpu: `${Math.round(u.cpu * 1e6)}n`,
  memory: `${Math.round(u.memory / 1024)}Ki`,
});

function podMetrics(p: Obj, now: number): Obj {
  return {
    metadata: {
      name: p.metadata.name,
      namespace: p.metadata.namespace,
      labels: p.metadata.labels,
      creationTimestamp: rfc3339(now),
    },
    timestamp: rfc3339(now),
    window: '30s',
    containers: (p.spec?.containers ?? []).map((c: Obj) => ({
      name: c.name,
      usage: usageOf(containerUsage(c)),
    })),
  };
}

const running = (p: Obj) => p.status?.phase === 'Running';

/** Answers `/apis/metrics.k8s.io/v1beta1/…`; returns false for other paths. */
export const metricsRoute =
  (api: ApiServer) =>
  async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const m = PATH.exec(url.pathname);
    if (!m || req.method !== 'GET') return false;
    const [, ns, resource, name] = m;
    const now = api.clock.now();
    const labelSelector = url.searchParams.get('labelSelector') ?? undefined;
    if (resource === 'pods') {
      const pods = (await api.list('pods', { namespace: ns, labelSelector })).items.filter(
        running,
      ) as KubeObject[];
      const items = pods.filter((p) => !name || p.metadata.name === name).map((p) => podMetrics(p, now));
      if (name && !items.length) throw pathNotFound();
      sendJson(
        res,
        200,
        name
          ? { kind: 'PodMetrics', apiVersion: GV, ...items[0] }
          : { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items },
      );
      return true;
    }
    if (ns) throw pathNotFound();
    const nodes = (await api.list('nodes', { labelSelector })).items.filter(
      (n) => !name || n.metadata.name === name,
    );
    if (name && !nodes.length) throw pathNotFound();
    const pods = (await api.list('pods')).items.filter(running) as Obj[];
    const items = nodes.map((n) => {
      const sum = { cpu: 0, memory: 0 };
      for (const p of pods)
        if (p.spec?.nodeName === n.metadata.name)
          for (const c of p.spec?.containers ?? []) {
            const u = containerUsage(c);
            sum.cpu += u.cpu;
            sum.memory += u.memory;
          }
      return {
        metadata: { name: n.metadata.name, labels: n.metadata.labels, creationTimestamp: rfc3339(now) },
        timestamp: rfc3339(now),
        window: '30s',
        usage: usageOf(sum),
      };
    });
    sendJson(
      res,
      200,
      name
        ? { kind: 'NodeMetrics', apiVersion: GV, ...items[0] }
        : { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items },
    );
    return true;
  };

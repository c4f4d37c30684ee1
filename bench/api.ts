/**
 * `kubesim bench api`: the ApiServer layer's hot paths — quantity parsing, the msgpackr value
 * codec (against JSON for comparison), validation, manifest parsing (YAML vs JSON), and the
 * ApiServer's create / get / CAS update / bind / list-with-selector over the in-memory store,
 * with N pods already stored (the size dimension).
 */
import type { BenchOptions, BenchRecorder, BenchSuite } from './harness.js';
import { ApiServer } from '../src/api/apiserver.js';
import { decode, encode, portableCodec } from '../src/api/codec.js';
import { parseManifests } from '../src/api/manifest.js';
import { bytes, cpuMillis, parseQuantity } from '../src/api/quantity.js';
import { lookupKind } from '../src/api/registry.js';
import type { Pod } from '../src/api/types.js';
import { validateObject } from '../src/api/validation.js';
import { MemoryStore } from '../src/store/memory/store.js';
import { ManualClock } from '../src/util/clock.js';
import { Rng } from '../src/util/rng.js';

const QUANTITIES = [
  '100m',
  '250m',
  '1',
  '2',
  '1.5',
  '128Mi',
  '1Gi',
  '1.5Gi',
  '512Mi',
  '31661484Ki',
  '7910m',
  '110',
  '95491281146',
  '1e3',
  '2k',
  '0.5',
];

function pod(name: string, rng: Rng): Pod {
  const app = `app-${rng.int(50)}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `ns-${rng.int(10)}`,
      labels: { app, tier: rng.int(2) ? 'web' : 'db', 'pod-template-hash': '7c9d8b6f5d' },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: `registry.example.com/${app}:1.${rng.int(9)}`,
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: {
            requests: { cpu: `${100 + rng.int(900)}m`, memory: `${128 << rng.int(4)}Mi` },
            limits: { memory: '2Gi' },
          },
        },
        {
          name: 'sidecar',
          image: 'envoyproxy/envoy:v1.31.0',
          resources: { requests: { cpu: '50m', memory: '64Mi' } },
        },
      ],
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
  };
}

export const suite: BenchSuite = {
  name: 'api',
  description:
    'ApiServer layer: quantities, msgpackr codec vs JSON, validation, manifest parsing, create/get/update/bind/list over the memory store',
  sizeUnit: 'pods',
  defaultSizes: [1_000, 10_000],
  quickSizes: [1_000],
  async run(opts, rec) {
    const rng = new Rng(opts.seed);
    await quantities(rec);
    await codec(rec, rng);
    await validation(rec, rng);
    await manifests(rec, rng, opts);
    await watchFanout(rec, opts);
    for (const n of opts.sizes ?? (opts.quick ? suite.quickSizes : suite.defaultSizes))
      await apiserver(rec, n, opts);
  },
};

async function quantities(rec: BenchRecorder): Promise<void> {
  const batch = 16_000;
  await rec.measure(
    'parseQuantity',
    () => {
      let s = 0;
      for (let i = 0; i < batch; i++) s += parseQuantity(QUANTITIES[i & 15]!).sign();
      if (s === 0) throw new Error('unreachable');
    },
    { units: batch, unit: 'parses' },
  );
  await rec.measure(
    'cpuMillis + bytes',
    () => {
      let s = 0;
      for (let i = 0; i < batch; i += 2)
        s += cpuMillis(QUANTITIES[i & 15]!) + bytes(QUANTITIES[(i + 1) & 15]!);
      if (s === 0) throw new Error('unreachable');
    },
    { units: batch, unit: 'conversions' },
  );
}

async function codec(rec: BenchRecorder, rng: Rng): Promise<void> {
  const pods = Array.from({ length: 1000 }, (_, i) => pod(`p-${i}`, rng));
  const packed = pods.map((p) => encode(p));
  const json = pods.map((p) => JSON.stringify(p));
  const portable = pods.map((p) => portableCodec.encode(p));
  const figures = {
    bytesPerPodMsgpack: Math.round(packed.reduce((s, b) => s + b.length, 0) / pods.length),
    bytesPerPodPortable: Math.round(portable.reduce((s, b) => s + b.length, 0) / pods.length),
    bytesPerPodJson: Math.round(json.reduce((s, b) => s + Buffer.byteLength(b), 0) / pods.length),
  };
  await rec.measure(
    'encode pod',
    () => {
      for (const p of pods) encode(p);
    },
    { mode: 'msgpackr', units: pods.length, unit: 'pods', figures },
  );
  await rec.measure(
    'encode pod',
    () => {
      for (const p of pods) portableCodec.encode(p);
    },
    { mode: 'msgpackr-portable', units: pods.length, unit: 'pods' },
  );
  await rec.measure(
    'encode pod',
    () => {
      for (const p of pods) Buffer.from(JSON.stringify(p));
    },
    { mode: 'json', units: pods.length, unit: 'pods' },
  );
  await rec.measure(
    'decode pod',
    () => {
      for (const b of packed) decode(b);
    },
    { mode: 'msgpackr', units: pods.length, unit: 'pods' },
  );
  await rec.measure(
    'decode pod',
    () => {
      for (const b of portable) portableCodec.decode(b);
    },
    { mode: 'msgpackr-portable', units: pods.length, unit: 'pods' },
  );
  const jsonBytes = json.map((j) => Buffer.from(j));
  await rec.measure(
    'decode pod',
    () => {
      for (const b of jsonBytes) JSON.parse(b.toString('utf8'));
    },
    { mode: 'json', units: pods.length, unit: 'pods' },
  );
}

async function validation(rec: BenchRecorder, rng: Rng): Promise<void> {
  const pods = Array.from({ length: 1000 }, (_, i) => pod(`p-${i}`, rng));
  const info = lookupKind('v1', 'Pod')!;
  await rec.measure(
    'validate pod',
    () => {
      for (const p of pods) if (validateObject(p, info).length) throw new Error('fixture pod is invalid');
    },
    { units: pods.length, unit: 'pods' },
  );
}

async function manifests(rec: BenchRecorder, rng: Rng, opts: BenchOptions): Promise<void> {
  const n = opts.quick ? 500 : 2000;
  const pods = Array.from({ length: n }, (_, i) => pod(`p-${i}`, rng));
  const yamlText = pods.map((p) => toYaml(p)).join('---\n');
  const jsonText = JSON.stringify(
    { apiVersion: 'v1', kind: 'List', items: pods, metadata: { resourceVersion: '1' } },
    null,
    2,
  );
  await rec.measure(
    'parse manifests',
    () => {
      if (parseManifests(yamlText, 'bench.yaml').length !== n) throw new Error('bad count');
    },
    { mode: 'yaml', units: n, unit: 'objects', figures: { bytes: Buffer.byteLength(yamlText) } },
  );
  await rec.measure(
    'parse manifests',
    () => {
      if (parseManifests(jsonText, 'bench.json').length !== n) throw new Error('bad count');
    },
    { mode: 'json', units: n, unit: 'objects', figures: { bytes: Buffer.byteLength(jsonText) } },
  );
}

/** A small YAML emitter for plain data (enough for the benchmark's pods). */
function toYaml(v: unknown, indent = ''): string {
  if (Array.isArray(v)) return v.map((x) => `${indent}- ${toYaml(x, indent + '  ').trimStart()}`).join('');
  if (v && typeof v === 'object') {
    return Object.entries(v)
      .map(([k, x]) =>
        x && typeof x === 'object'
          ? `${indent}${JSON.stringify(k)}:\n${toYaml(x, indent + '  ')}`
          : `${indent}${JSON.stringify(k)}: ${JSON.stringify(x)}\n`,
      )
      .join('');
  }
  return `${JSON.stringify(v)}\n`;
}

async function apiserver(rec: BenchRecorder, n: number, opts: BenchOptions): Promise<void> {
  const rng = new Rng(opts.seed + n);
  const clock = new ManualClock();
  const store = new MemoryStore({ clock });
  const api = new ApiServer(store, {
    clock,
    flowControl: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 },
  });
  const base = Array.from({ length: n }, (_, i) => pod(`base-${i}`, rng));
  const t0 = performance.now();
  for (const p of base) await api.create(p);
  rec.figure(
    'create (fill)',
    {
      pods: n,
      ms: Math.round(performance.now() - t0),
      podsPerSec: Math.round(n / ((performance.now() - t0) / 1000)),
    },
    { size: n },
  );

  // reads first, while the store holds exactly n pods
  const total = (await api.list('pods')).items.length; // = n
  await rec.measure(
    'list all',
    async () => {
      await api.list('pods');
    },
    { size: n, units: 1, unit: 'lists', figures: { items: total } },
  );
  await rec.measure(
    'list labelSelector app=app-7,tier=web',
    async () => {
      await api.list('pods', { labelSelector: 'app=app-7,tier=web' });
    },
    { size: n, units: 1, unit: 'lists' },
  );

  const batch = 500;
  let seq = 0;
  await rec.measure(
    'create',
    async () => {
      for (let i = 0; i < batch; i++) await api.create(pod(`c-${seq++}`, rng));
    },
    { size: n, units: batch, unit: 'creates' },
  );

  const names = base.map((p) => [p.metadata.namespace!, p.metadata.name!] as const);
  let gi = 0;
  await rec.measure(
    'get',
    async () => {
      for (let i = 0; i < batch; i++) {
        const [ns, name] = names[gi++ % n]!;
        await api.get('pods', ns, name);
      }
    },
    { size: n, units: batch, unit: 'gets' },
  );

  let ui = 0;
  await rec.measure(
    'update (CAS, label change)',
    async () => {
      for (let i = 0; i < batch; i++) {
        const [ns, name] = names[ui++ % n]!;
        const cur = await api.get<Pod>('pods', ns, name);
        cur.metadata.labels!.rev = String(ui);
        await api.update(cur);
      }
    },
    { size: n, units: batch, unit: 'get+update' },
  );

  let bi = 0;
  await rec.measure(
    'bind',
    async () => {
      for (let i = 0; i < batch; i++) {
        const name = `b-${bi++}`;
        const created = await api.create(pod(name, rng));
        await api.bind({
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace: created.metadata.namespace },
          target: { kind: 'Node', name: `node-${i % 100}` },
        });
      }
    },
    { size: n, units: batch, unit: 'create+bind' },
  );

  await store.close();
}

/** 100 per-node watches (a kubelet each: fieldSelector spec.nodeName=<node>) + 1 unfiltered watch; create+bind pods. */
async function watchFanout(rec: BenchRecorder, opts: BenchOptions): Promise<void> {
  const rng = new Rng(opts.seed + 7);
  const clock = new ManualClock();
  const store = new MemoryStore({ clock });
  const api = new ApiServer(store, {
    clock,
    flowControl: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 },
  });
  const nodes = 100;
  let delivered = 0;
  const handles = [];
  for (let i = 0; i < nodes; i++) {
    handles.push(
      await api.watch(
        'pods',
        { resourceVersion: '1', fieldSelector: `spec.nodeName=node-${i}` },
        () => delivered++,
      ),
    );
  }
  handles.push(await api.watch('pods', { resourceVersion: '1' }, () => delivered++));
  const batch = 200;
  let seq = 0;
  await rec.measure(
    'create+bind with 101 watches',
    async () => {
      const target = delivered + batch * 3; // unfiltered: ADDED + MODIFIED; node watch: ADDED
      for (let i = 0; i < batch; i++) {
        const name = `w-${seq++}`;
        const p = await api.create(pod(name, rng));
        await api.bind({
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace: p.metadata.namespace },
          target: { kind: 'Node', name: `node-${seq % nodes}` },
        });
      }
      while (delivered < target) await new Promise((r) => setImmediate(r));
    },
    { units: batch, unit: 'pods', figures: { watchers: nodes + 1 } },
  );
  for (const h of handles) await h.stop();
  await store.close();
}

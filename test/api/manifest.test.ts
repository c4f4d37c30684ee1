import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkManifests } from '../../src/api/manifest-check.js';
import {
  ManifestError,
  loadManifests,
  parseManifests,
  prepareForCreate,
  splitFieldPath,
} from '../../src/api/manifest.js';
import { ApiServer } from '../../src/api/apiserver.js';
import { MemoryStore } from '../../src/store/memory/store.js';
import { ManualClock } from '../../src/util/clock.js';
import { bytes, cpuMillis } from '../../src/api/quantity.js';
import type { Node, Pod } from '../../src/api/types.js';

const FIX = 'test/fixtures/manifests';

describe('loading manifests', () => {
  it('loads a directory: multi-document YAML, List, typed JSON list, with sources', async () => {
    const objs = await loadManifests([FIX]);
    const ids = objs.map(
      (o) => `${o.object.kind}/${o.object.metadata.name}@${o.source.file.split('/').pop()}:${o.source.line}`,
    );
    expect(ids).toEqual([
      'Deployment/web@deployment.yaml:1',
      'EndpointSlice/web-abc12@endpointslices.yaml:1',
      'Namespace/shop@list.yaml:3',
      'ReplicaSet/web-7c9d8b6f5d@list.yaml:14',
      'Lease/worker-1@list.yaml:39',
      'Event/web-7c9d8b6f5d-x2k4q.17a1b2c3d4e5f607@list.yaml:48',
      'Node/worker-1@node.yaml:1',
      'Pod/web-7c9d8b6f5d-x2k4q@pods.yaml:1',
      'Pod/batch-0@pods.yaml:118',
      'Service/web@services.yaml:1',
      'Service/web-nodeport@services.yaml:15',
      'Service/web-lb@services.yaml:34',
      'Service/db@services.yaml:53',
      'Service/payments@services.yaml:65',
      'Pod/api-0@snapshot.json:4',
      'Pod/api-1@snapshot.json:22',
    ]);
    // subdirectories only with recursive
    expect(objs.some((o) => o.source.file.includes('invalid'))).toBe(false);
    const list = objs.filter((o) => o.source.file.endsWith('list.yaml'));
    expect(list.map((o) => [o.source.document, o.source.item, o.listResourceVersion])).toEqual([
      [0, 0, '918300'],
      [0, 1, '918300'],
      [0, 2, '918300'],
      [0, 3, '918300'],
    ]);
    // PodList items without kind/apiVersion get them from the list
    const api1 = objs.find((o) => o.object.metadata.name === 'api-1')!;
    expect(api1.object.kind).toBe('Pod');
    expect(api1.object.apiVersion).toBe('v1');
    expect(api1.listResourceVersion).toBe('918400');
    expect(objs.find((o) => o.object.metadata.name === 'batch-0')!.source.document).toBe(1);
  });

  it('every fixture object is valid', async () => {
    const reports = checkManifests(await loadManifests([FIX]));
    expect(reports.filter((r) => !r.ok).map((r) => r.errors)).toEqual([]);
    expect(reports.flatMap((r) => r.warnings)).toEqual([]);
  });

  it('reads quantities from a real node and pod exactly', async () => {
    const [node] = await loadManifests([`${FIX}/node.yaml`]);
    const n = node!.object as Node;
    expect(cpuMillis(n.status!.allocatable!.cpu!)).toBe(7910);
    expect(bytes(n.status!.allocatable!.memory!)).toBe(31661484 * 1024);
    expect(bytes(n.status!.allocatable!['ephemeral-storage']!)).toBe(95491281146);
    expect(bytes(n.status!.capacity!.pods!)).toBe(110);
    const [pod] = await loadManifests([`${FIX}/pods.yaml`]);
    const p = pod!.object as Pod;
    expect(p.spec.initContainers![1]!.restartPolicy).toBe('Always');
    expect(cpuMillis(p.spec.overhead!.cpu!)).toBe(250);
    expect(bytes(p.spec.overhead!.memory!)).toBe(120 * 1048576);
  });

  it('field paths resolve to lines', async () => {
    const [pod] = await loadManifests([`${FIX}/pods.yaml`], { fieldPositions: true });
    expect(pod!.lineOf('spec.containers[0].resources.requests[cpu]')).toBe(42);
    expect(pod!.lineOf('spec.initContainers[1].restartPolicy')).toBe(68);
    expect(pod!.lineOf('spec.containers[0].nosuchfield')).toBe(22); // deepest existing: containers[0]
    expect(pod!.lineOf('metadata.labels')).toBe(6);
    expect(splitFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual([
      'metadata',
      'labels',
      'app.kubernetes.io/name',
    ]);
    const json = await loadManifests([`${FIX}/snapshot.json`], { fieldPositions: true });
    expect(json[0]!.lineOf('spec.containers[0].image')).toBe(16);
  });

  it('malformed YAML and JSON give file and line', () => {
    expect(() =>
      parseManifests('apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: [\n', 'bad.yaml'),
    ).toThrow(/^bad\.yaml:\d+:\d+: error parsing YAML: /);
    try {
      parseManifests('{\n  "kind": "Pod",\n  "metadata": {,\n}', 'bad.json');
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(ManifestError);
      expect((e as ManifestError).message).toMatch(/^bad\.json:3:\d+: error parsing JSON: /);
    }
    expect(() => parseManifests('- a\n- b\n', 'x.yaml')).toThrow(
      'x.yaml:1: document 0 is not an object (got a list)',
    );
    expect(() => parseManifests('"just a string"', 'x.json')).toThrow(
      'x.json:1: document 0 is not an object (got a string)',
    );
  });

  it('malformed fixture file is reported with its path and line', async () => {
    await expect(loadManifests([`${FIX}/invalid/malformed.yaml`])).rejects.toThrow(
      /malformed\.yaml:8:\d+: error parsing YAML/,
    );
    await expect(loadManifests([`${FIX}/nope.yaml`])).rejects.toThrow(
      `${FIX}/nope.yaml: no such file or directory`,
    );
  });

  it('oversized files are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-manifest-'));
    const f = join(dir, 'big.yaml');
    writeFileSync(f, 'a: ' + 'x'.repeat(5000));
    await expect(loadManifests([f], { maxFileBytes: 4096 })).rejects.toThrow(
      `${f}: file is 4.9 KiB, larger than the 4.0 KiB limit`,
    );
    expect(() => parseManifests('kind: Pod\n'.repeat(100), 'in.yaml', { maxFileBytes: 10 })).toThrow(
      /in\.yaml: file is/,
    );
  });

  it('recursive directories, empty documents, YAML 1.1 booleans, merge keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-manifest-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(
      join(dir, 'a.yml'),
      '---\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n',
    );
    writeFileSync(
      join(dir, 'sub', 'b.yaml'),
      'base: &b\n  app: x\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n  labels:\n    <<: *b\n    flag: yes\n',
    );
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    expect((await loadManifests([dir])).map((o) => o.object.metadata.name)).toEqual(['a']);
    const all = await loadManifests([dir], { recursive: true });
    expect(all.map((o) => o.object.metadata.name)).toEqual(['a', 'b']);
    const b = all[1]!.object;
    expect(b.metadata.labels).toEqual({ app: 'x', flag: true }); // yes is a boolean in YAML 1.1, as kubectl reads it
    const r = checkManifests(all);
    expect(r[1]!.errors.join('\n')).toContain('metadata.labels[flag]: Invalid value: true: must be a string');
    expect(r[1]!.errors.join('\n')).toContain('base: unknown field');
  });

  it('YAML scalars resolve like go-yaml v2 (kubectl): timestamps and 1:30 stay strings, yes/on/0755/1_000 do not', () => {
    const [o] = parseManifests(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  creationTimestamp: 2026-01-12T09:00:00Z\ndata:\n  t: 1:30\n  d: 2001-12-14\n  b: on\n  o: 0755\n  u: 1_000\n',
      'c.yaml',
    );
    expect(o!.object).toMatchObject({
      metadata: { creationTimestamp: '2026-01-12T09:00:00Z' },
      data: { t: '1:30', d: '2001-12-14', b: true, o: 493, u: 1000 },
    });
  });

  it('JSON arrays of objects', () => {
    const objs = parseManifests(
      '[\n {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}},\n {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}\n]',
      'ns.json',
    );
    expect(objs.map((o) => [o.object.metadata.name, o.source.line, o.source.item])).toEqual([
      ['a', 2, 0],
      ['b', 3, 1],
    ]);
  });

  it('a snapshot loads into the ApiServer after prepareForCreate', async () => {
    const clock = new ManualClock();
    const api = new ApiServer(new MemoryStore({ clock }), { clock });
    const objs = await loadManifests([FIX]);
    const order = [
      'Namespace',
      'Node',
      'Service',
      'Deployment',
      'ReplicaSet',
      'Pod',
      'EndpointSlice',
      'Lease',
      'Event',
    ];
    objs.sort((a, b) => order.indexOf(a.object.kind) - order.indexOf(b.object.kind));
    for (const o of objs) await api.create(prepareForCreate(o.object));
    expect((await api.list('pods', { namespace: 'shop' })).items).toHaveLength(4);
    const svc = await api.get<any>('services', 'shop', 'web-nodeport');
    expect(svc.spec.ports.map((p: any) => p.nodePort)).toEqual([30080, 30000]);
    const p = await api.get<Pod>('pods', 'shop', 'web-7c9d8b6f5d-x2k4q');
    expect(p.spec.nodeName).toBe('worker-1');
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'Burstable' }); // status is the server's on create
  });
});

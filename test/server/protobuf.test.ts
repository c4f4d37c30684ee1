// The protobuf codec (src/server/protobuf.ts) against objects of many kinds: JSON → protobuf →
// JSON gives the object back; the bytes are those protobufjs reads with the upstream
// generated.proto field numbers (checked on fields whose numbers are known from k8s.io/api).
import { describe, expect, it } from 'vitest';
import {
  decodeProtobufObject,
  decodeWatchFrames,
  encodeProtobufObject,
  encodeWatchFrame,
  goDuration,
} from '../../src/server/protobuf.js';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web' },
    creationTimestamp: '2026-12-07T10:00:00Z',
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2026-12-07T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
            readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 },
          },
        ],
        volumes: [
          { name: 'tmp', emptyDir: {} },
          { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
        ],
        terminationGracePeriodSeconds: 30,
      },
    },
  },
};

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's' },
  type: 'Opaque',
  data: { k: Buffer.from('v').toString('base64') },
};

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', default: 1 },
                  tags: { type: 'array', items: { type: 'string' } },
                },
                'x-kubernetes-preserve-unknown-fields': true,
              },
            },
          },
        },
      },
    ],
  },
};

const cronjob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'c' },
  spec: {
    schedule: '*/1 * * * *',
    jobTemplate: {
      spec: {
        template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } },
      },
    },
  },
};

describe('protobuf codec', () => {
  for (const obj of [deployment, secret, crd, cronjob]) {
    it(`${obj.kind}: JSON → k8s\\0 envelope → JSON is the same object`, () => {
      const bytes = encodeProtobufObject(structuredClone(obj));
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('k8s\0');
      expect(decodeProtobufObject(bytes)).toEqual(obj);
    });
  }

  it('a Namespace is the bytes upstream writes: field 1 metadata → field 1 name', () => {
    const b = encodeProtobufObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ab' } });
    // envelope: typeMeta (1) {apiVersion (1) "v1", kind (2) "Namespace"}, raw (2) Namespace{metadata (1){name (1) "ab"}}
    const raw = Buffer.from([0x0a, 0x04, 0x0a, 0x02, 0x61, 0x62]);
    expect(b.includes(raw)).toBe(true);
  });

  it('refuses bytes without the magic and names an unknown kind', () => {
    expect(() => decodeProtobufObject(Buffer.from('{}'))).toThrow(/expected prefix \[107 56 115 0\]/);
    const b = encodeProtobufObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
    b[b.indexOf('Namespace')] = 'X'.charCodeAt(0);
    expect(() => decodeProtobufObject(b)).toThrow(/no kind "Xamespace" is registered for version "v1"/);
  });

  it('watch frames are length-prefixed WatchEvents carrying enveloped objects', () => {
    const a = encodeWatchFrame('ADDED', secret);
    const b = encodeWatchFrame('DELETED', secret);
    expect(a.readUInt32BE(0)).toBe(a.length - 4);
    expect(decodeWatchFrames(Buffer.concat([a, b]))).toEqual([
      { type: 'ADDED', object: secret },
      { type: 'DELETED', object: secret },
    ]);
  });

  it("durations print as Go's time.Duration", () => {
    expect([0, 1.5e9, 90e9, 3.6e12, 5e6].map(goDuration)).toEqual(['0s', '1.5s', '1m30s', '1h0m0s', '5ms']);
  });
});

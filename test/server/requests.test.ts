// kube-apiserver's request handling as clients other than kubectl meet it, over raw HTTP against
// `kubesim serve`: apimachinery's query-parameter parsing, the legacy /watch/ paths, typed bodies
// (wrong JSON types, unknown fields with fieldValidation), the 3 MiB body limit, self reviews and
// protobuf on the wire. Expected messages are kube-apiserver 1.34's.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeProtobufObject,
  decodeWatchFrames,
  encodeProtobufObject,
  PROTOBUF,
} from '../../src/server/protobuf.js';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

interface Answer {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe.skipIf(!builtCli)('kube-apiserver request handling in kubesim serve', () => {
  let srv: ServeProcess;

  /** one request; a watch is read for `streamMs` and then closed */
  const call = (
    method: string,
    path: string,
    body?: Buffer | string | object,
    headers: Record<string, string> = {},
    streamMs = 0,
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const data =
        body === undefined
          ? undefined
          : Buffer.isBuffer(body) || typeof body === 'string'
            ? body
            : JSON.stringify(body);
      const req = request(
        `${srv.url}${path}`,
        {
          method,
          headers: {
            'Content-Type': 'application/json',
            ...headers,
            ...(data ? { 'Content-Length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          const done = () =>
            resolve({ code: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
          res.on('end', done);
          if (streamMs)
            setTimeout(() => {
              done();
              req.destroy();
            }, streamMs);
        },
      );
      req.on('error', reject);
      if (data) req.write(data);
      req.end();
    });
  const json = (a: Answer) => JSON.parse(a.body.toString('utf8'));
  const lines = (a: Answer) =>
    a.body
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const cm = (name: string, data: unknown) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data,
  });

  beforeAll(async () => {
    srv = await startServe(['--paused']);
    for (const n of ['a', 'b'])
      expect((await call('POST', '/api/v1/namespaces/default/configmaps', cm(n, { k: n }))).code).toBe(201);
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('booleans: watch=True and a bare ?watch stream events; watch=False and watch=0 list', async () => {
    for (const q of ['watch=True', 'watch', 'watch=yes']) {
      const a = await call('GET', `/api/v1/namespaces/default/configmaps?${q}`, undefined, {}, 300);
      expect(lines(a).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED a', 'ADDED b']);
    }
    for (const q of ['watch=False', 'watch=0', 'watch=FALSE'])
      expect(json(await call('GET', `/api/v1/namespaces/default/configmaps?${q}`)).kind).toBe(
        'ConfigMapList',
      );
  });

  it('integers and enumerations: 400 for limit=abc, 422 for unknown resourceVersionMatch and fieldValidation', async () => {
    const bad = await call('GET', '/api/v1/configmaps?limit=abc');
    expect(bad.code).toBe(400);
    expect(json(bad).message).toBe('strconv.ParseInt: parsing "abc": invalid syntax');
    const rvm = await call('GET', '/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Newest');
    expect(rvm.code).toBe(422);
    expect(json(rvm).message).toContain(
      'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan"',
    );
    const noRv = await call('GET', '/api/v1/configmaps?resourceVersionMatch=Exact');
    expect(json(noRv).message).toContain(
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const fv = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldValidation=Loose',
      cm('fv', {}),
    );
    expect(fv.code).toBe(422);
    expect(json(fv).message).toContain(
      'fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Strict", "Warn"',
    );
    const t = await call('GET', '/api/v1/configmaps?watch=1&timeoutSeconds=x');
    expect(t.code).toBe(400);
  });

  it('legacy watch paths: /api/v1/watch/namespaces/NS/configmaps/NAME watches that object only', async () => {
    const one = await call('GET', '/api/v1/watch/namespaces/default/configmaps/b', undefined, {}, 300);
    expect(lines(one).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED b']);
    const all = await call('GET', '/apis/apps/v1/watch/deployments', undefined, {}, 300);
    expect(all.code).toBe(200);
    expect(all.headers['content-type']).toBe('application/json');
    expect((await call('POST', '/api/v1/watch/namespaces/default/configmaps', cm('w', {}))).code).toBe(405);
  });

  it('a ConfigMap data value that is not a string is a 400 with the decoder message; nothing is stored', async () => {
    for (const v of [1, { x: 'y' }]) {
      const a = await call('POST', '/api/v1/namespaces/default/configmaps', cm('typed', { k: v }));
      expect(a.code).toBe(400);
      expect(json(a).message).toBe(
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${typeof v === 'number' ? 'number' : 'object'} into Go struct field ConfigMap.data of type string`,
      );
    }
    const nested = await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: '3', selector: { matchLabels: { a: 'b' } }, template: {} },
    });
    expect(json(nested).message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/typed')).code).toBe(404);
  });

  it('unknown fields (__proto__ too) are dropped with a Warning header, refused under Strict, silent under Ignore', async () => {
    const body =
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto","__proto__":{"x":1}},"data":{"k":"v"},"extra":1}';
    const warn = await call('POST', '/api/v1/namespaces/default/configmaps', body);
    expect(warn.code).toBe(201);
    // in the order the body has them, as the decoder meets them
    expect(warn.headers.warning).toBe(
      '299 - "unknown field \\"metadata.__proto__\\"", 299 - "unknown field \\"extra\\""',
    );
    const stored = json(await call('GET', '/api/v1/namespaces/default/configmaps/proto'));
    expect(Object.keys(stored.metadata)).not.toContain('__proto__');
    expect(Object.keys(stored.metadata)).not.toContain('__proto_');
    expect(stored.extra).toBeUndefined();
    const strict = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldValidation=Strict',
      body.replace('"proto"', '"proto2"'),
    );
    expect(strict.code).toBe(400);
    expect(json(strict).message).toBe(
      'strict decoding error: unknown field "metadata.__proto__", unknown field "extra"',
    );
    const ignore = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore',
      body.replace('"proto"', '"proto3"'),
    );
    expect(ignore.code).toBe(201);
    expect(ignore.headers.warning).toBeUndefined();
  });

  it('a body past 3 MiB is answered 413 (the client gets the answer, not a reset)', async () => {
    const big = JSON.stringify(cm('big', { k: 'x'.repeat(4 * 1024 * 1024) }));
    const a = await call('POST', '/api/v1/namespaces/default/configmaps', big);
    expect(a.code).toBe(413);
    expect(json(a)).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
    });
  });

  it('self reviews: SelfSubjectReview names the admin; SelfSubjectAccessReview allows and echoes the spec', async () => {
    const who = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(who.code).toBe(201);
    expect(json(who).status.userInfo).toEqual({
      username: 'kubesim-admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    const spec = { resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'default' } };
    const ssar = encodeProtobufObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec,
    });
    const can = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar, {
      'Content-Type': PROTOBUF,
    });
    expect(json(can)).toMatchObject({ spec, status: { allowed: true } });
  });

  it('protobuf: a create sent as protobuf is stored; Accept protobuf answers protobuf; watch frames', async () => {
    const ns = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb', labels: { a: 'b' } },
    });
    const created = await call('POST', '/api/v1/namespaces', ns, {
      'Content-Type': PROTOBUF,
      Accept: `${PROTOBUF}, application/json`,
    });
    expect(created.code).toBe(201);
    expect(created.headers['content-type']).toBe(PROTOBUF);
    expect(decodeProtobufObject(created.body)).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'pb', labels: { a: 'b' } },
    });
    const list = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, { Accept: PROTOBUF });
    const decoded = decodeProtobufObject(list.body);
    expect(decoded.kind).toBe('ConfigMapList');
    expect(decoded.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('a');
    const w = await call(
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name=a',
      undefined,
      { Accept: PROTOBUF },
      300,
    );
    expect(w.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
    expect(decodeWatchFrames(w.body).map((e) => `${e.type} ${e.object.kind} ${e.object.data.k}`)).toEqual([
      'ADDED ConfigMap a',
    ]);
    // JSON stays the default, and a client that takes JSON only gets JSON
    expect(
      (await call('GET', '/api/v1/namespaces/pb', undefined, { Accept: 'application/json' })).headers[
        'content-type'
      ],
    ).toBe('application/json');
  });
  it('autoscaling/v1 HPA tables: the cells printed as at v2 (TARGETS), the row objects at v1; list and watch', async () => {
    const hpa = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 70,
      },
    };
    const path = (v: string) => `/apis/autoscaling/${v}/namespaces/default/horizontalpodautoscalers`;
    expect((await call('POST', path('v1'), hpa)).code).toBe(201);
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const v1 = json(await call('GET', `${path('v1')}?includeObject=Object`, undefined, table));
    const v2 = json(await call('GET', `${path('v2')}?includeObject=Object`, undefined, table));
    // upstream prints the internal version whichever version was asked: the same cells
    expect(v1.rows[0].cells.slice(0, 6)).toEqual(['web', 'Deployment/web', 'cpu: <unknown>/70%', '2', 5, 0]);
    expect(v1.rows[0].cells).toEqual(v2.rows[0].cells);
    expect(v1.rows[0].object).toMatchObject({
      apiVersion: 'autoscaling/v1',
      spec: { targetCPUUtilizationPercentage: 70 },
    });
    expect(v1.rows[0].object.spec.metrics).toBeUndefined();
    expect(v2.rows[0].object.apiVersion).toBe('autoscaling/v2');
    const w = lines(
      await call(
        'GET',
        `${path('v1')}?watch=1&includeObject=Object&resourceVersion=0`,
        undefined,
        table,
        300,
      ),
    );
    expect(w.map((e) => e.object.rows[0].cells[2])).toEqual(['cpu: <unknown>/70%']);
    expect(w[0].object.rows[0].object.apiVersion).toBe('autoscaling/v1');
  });
});

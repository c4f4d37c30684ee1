// CRD x-kubernetes-validations rules (src/api/crd-cel.ts) through `kubesim serve`: over raw HTTP
// (create, update, patch: messages, messageExpression, reason + fieldPath, transition rules with
// oldSelf, list-map item correlation, optionalOldSelf, ratcheting warnings, evaluation errors,
// the blocking-error note) and through kubectl apply. Expected texts are apiextensions-apiserver
// 1.34's (pkg/apiserver/schema/cel/validation.go, pkg/registry/customresource/strategy.go).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, builtCli, kubectlPath, startServe } from './serve-process.js';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'pools.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'pools', singular: 'pool', kind: 'Pool' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            'x-kubernetes-validations': [
              { rule: "self.metadata.name.startsWith('p')", message: 'pool names start with p' },
            ],
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [
                  {
                    rule: 'self.minReplicas <= self.maxReplicas',
                    message: 'minReplicas must not exceed maxReplicas',
                  },
                  {
                    rule: '!has(self.legacy)',
                    reason: 'FieldValueForbidden',
                    fieldPath: '.legacy',
                    message: 'legacy is gone',
                  },
                  { rule: 'self.maxReplicas - self.minReplicas <= 10' },
                  {
                    rule: '!has(oldSelf.minReplicas) || self.minReplicas >= oldSelf.minReplicas',
                    messageExpression: "'minReplicas may not shrink below ' + string(oldSelf.minReplicas)",
                  },
                ],
                properties: {
                  minReplicas: { type: 'integer' },
                  maxReplicas: { type: 'integer' },
                  legacy: { type: 'string' },
                  code: { type: 'string', maxLength: 3 },
                  tags: { type: 'array', maxItems: 1, items: { type: 'string' } },
                  extra: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string' } },
                  mode: {
                    type: 'string',
                    enum: ['fast', 'slow'],
                    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }],
                  },
                  memory: {
                    type: 'string',
                    'x-kubernetes-validations': [{ rule: "quantity(self).isLessThan(quantity('1Gi'))" }],
                  },
                  zone: {
                    type: 'string',
                    'x-kubernetes-validations': [
                      {
                        rule: '!oldSelf.hasValue() || self == oldSelf.value()',
                        optionalOldSelf: true,
                        message: 'zone is set once',
                      },
                      { rule: 'self.size() > 0 && self.unknownFn()' },
                    ],
                  },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, port: { type: 'integer' } },
                      'x-kubernetes-validations': [
                        { rule: 'self.port == oldSelf.port', message: 'port is immutable' },
                      ],
                    },
                  },
                  labels: {
                    type: 'object',
                    additionalProperties: { type: 'string' },
                    'x-kubernetes-validations': [{ rule: "self.all(k, k.startsWith('x-'))" }],
                  },
                  limit: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                    'x-kubernetes-validations': [{ rule: 'self.max > 0' }],
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

interface Answer {
  code: number;
  body: any;
  warnings: string[];
}

describe.skipIf(!builtCli)('CRD validation rules (x-kubernetes-validations)', () => {
  let srv: ServeProcess;
  const base = '/apis/example.com/v1/namespaces/default/pools';

  const call = (method: string, path: string, body?: object, type = 'application/json'): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        `${srv.url}${path}`,
        {
          method,
          headers: { 'Content-Type': type, ...(data ? { 'Content-Length': Buffer.byteLength(data) } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            const w = res.headers.warning;
            const warnings = (Array.isArray(w) ? w : w ? [w] : []).map((x) =>
              JSON.parse(x.replace(/^299 - /, '')),
            );
            resolve({ code: res.statusCode!, body: text ? JSON.parse(text) : undefined, warnings });
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  const pool = (name: string, spec: object) => ({
    apiVersion: 'example.com/v1',
    kind: 'Pool',
    metadata: { name },
    spec,
  });
  const create = (name: string, spec: object) => call('POST', base, pool(name, spec));
  const message = (a: Answer) => a.body?.message as string;

  beforeAll(async () => {
    srv = await startServe(['--paused']);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).code).toBe(
      201,
    );
    // until the CRD is served: a deadline, not a count of tries (a busy machine answers slowly)
    const end = Date.now() + 60_000;
    while ((await call('GET', base)).code !== 200 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 100));
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('create: failed rules are 422 with the rule message, the default message, reason and fieldPath', async () => {
    const r = await create('p1', { minReplicas: 5, maxReplicas: 2 });
    expect(r.code).toBe(422);
    expect(message(r)).toBe(
      'Pool.example.com "p1" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
    );
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": minReplicas must not exceed maxReplicas',
        field: 'spec',
      },
    ]);
    expect(message(await create('p1', { minReplicas: 1, maxReplicas: 20 }))).toBe(
      'Pool.example.com "p1" is invalid: spec: Invalid value: "object": failed rule: self.maxReplicas - self.minReplicas <= 10',
    );
    expect(message(await create('p1', { minReplicas: 1, maxReplicas: 2, legacy: 'x' }))).toBe(
      'Pool.example.com "p1" is invalid: spec.legacy: Forbidden: legacy is gone',
    );
    expect(message(await create('q1', { minReplicas: 1, maxReplicas: 2 }))).toBe(
      'Pool.example.com "q1" is invalid: <nil>: Invalid value: "object": pool names start with p',
    );
    expect(message(await create('p1', { minReplicas: 1, maxReplicas: 2, memory: '2Gi' }))).toBe(
      `Pool.example.com "p1" is invalid: spec.memory: Invalid value: "string": failed rule: quantity(self).isLessThan(quantity('1Gi'))`,
    );
    expect(
      message(await create('p1', { minReplicas: 1, maxReplicas: 2, labels: { a: 'b', 'x-c': 'd' } })),
    ).toBe(
      `Pool.example.com "p1" is invalid: spec.labels: Invalid value: "object": failed rule: self.all(k, k.startsWith('x-'))`,
    );
    // an untyped (preserve-unknown-fields) value: JSON integers are CEL ints there too
    expect((await create('p1', { minReplicas: 1, maxReplicas: 2, limit: { max: 0 } })).code).toBe(422);
  });

  it('evaluation and compile errors, and the note when schema errors block the rules', async () => {
    const missing = await create('p2', { maxReplicas: 2 });
    expect(message(missing)).toContain(
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: minReplicas must not exceed maxReplicas',
    );
    const compile = await create('p2', { minReplicas: 1, maxReplicas: 2, zone: 'a' });
    expect(message(compile)).toMatch(
      /^Pool\.example\.com "p2" is invalid: spec\.zone: Invalid value: "string": rule compile error: compilation failed: /,
    );
    const blocked = await create('p2', { minReplicas: 'one', maxReplicas: 2, mode: 'turbo' });
    expect(message(blocked)).toBe(
      'Pool.example.com "p2" is invalid: [spec.minReplicas: Invalid value: "string": spec.minReplicas in body must be of type integer: "string", ' +
        'spec.mode: Unsupported value: "turbo": supported values: "fast", "slow", ' +
        '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('size limits: Too long / Too many as apimachinery 1.34 words them, and they block the rules', async () => {
    // field.TooLong (never prints the value), field.TooMany (count, then the limit; kube-openapi's
    // maxProperties error carries the limit as its value and no limit: TooMany(path, max, -1))
    const r = await create('p5', {
      minReplicas: 1,
      maxReplicas: 2,
      code: 'abcd',
      tags: ['a', 'b'],
      extra: { a: '1', b: '2', c: '3' },
    });
    expect(r.code).toBe(422);
    expect(message(r)).toBe(
      'Pool.example.com "p5" is invalid: [spec.code: Too long: may not be more than 3 bytes, ' +
        'spec.tags: Too many: 2: must have at most 1 item, spec.extra: Too many: 2: too many items, ' +
        '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    expect(r.body.details.causes.slice(0, 3)).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 3 bytes', field: 'spec.code' },
      { reason: 'FieldValueTooMany', message: 'Too many: 2: must have at most 1 item', field: 'spec.tags' },
      { reason: 'FieldValueTooMany', message: 'Too many: 2: too many items', field: 'spec.extra' },
    ]);
    // within the limits (multi-byte characters count once, as kube-openapi counts runes)
    const ok = await create('p5', { minReplicas: 1, maxReplicas: 2, code: 'äöü', tags: ['a'] });
    expect(ok.code).toBe(201);
  });

  it('update: transition rules see oldSelf; list-map items are correlated by key; messageExpression', async () => {
    const spec = {
      minReplicas: 2,
      maxReplicas: 4,
      mode: 'fast',
      ports: [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
      ],
    };
    expect((await create('p3', spec)).code).toBe(201);
    const put = async (s: object) => {
      const cur = (await call('GET', `${base}/p3`)).body;
      return call('PUT', `${base}/p3`, { ...cur, spec: s });
    };
    expect(message(await put({ ...spec, mode: 'slow' }))).toBe(
      'Pool.example.com "p3" is invalid: spec.mode: Invalid value: "string": mode is immutable',
    );
    expect(message(await put({ ...spec, minReplicas: 1 }))).toBe(
      'Pool.example.com "p3" is invalid: spec: Invalid value: "object": minReplicas may not shrink below 2',
    );
    // reordered and extended: items are matched by name, a new item has no oldSelf
    const ports = [
      { name: 'c', port: 9 },
      { name: 'b', port: 2 },
      { name: 'a', port: 1 },
    ];
    expect((await put({ ...spec, ports })).code).toBe(200);
    expect(message(await put({ ...spec, ports: [{ name: 'b', port: 3 }] }))).toBe(
      'Pool.example.com "p3" is invalid: spec.ports[0]: Invalid value: "object": port is immutable',
    );
    // a merge patch goes through the same rules against the stored object
    const patch = await call(
      'PATCH',
      `${base}/p3`,
      { spec: { mode: 'slow' } },
      'application/merge-patch+json',
    );
    expect(patch.code).toBe(422);
    expect(message(patch)).toContain('spec.mode: Invalid value: "string": mode is immutable');
  });

  it('ratcheting: an unchanged value that now breaks a rule is a warning, a changed one an error', async () => {
    expect((await create('p4', { minReplicas: 1, maxReplicas: 5, legacy: undefined })).code).toBe(201);
    const crd = (
      await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pools.example.com')
    ).body;
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    spec.properties.maxReplicas['x-kubernetes-validations'] = [{ rule: 'self <= 3', message: 'at most 3' }];
    expect(
      (await call('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pools.example.com', crd))
        .code,
    ).toBe(200);
    const cur = (await call('GET', `${base}/p4`)).body;
    const same = await call('PUT', `${base}/p4`, { ...cur, spec: { ...cur.spec, minReplicas: 2 } });
    expect(same.code).toBe(200);
    expect(same.warnings).toEqual(['spec.maxReplicas: Invalid value: "integer": at most 3']);
    const again = (await call('GET', `${base}/p4`)).body;
    const changed = await call('PUT', `${base}/p4`, { ...again, spec: { ...again.spec, maxReplicas: 6 } });
    expect(message(changed)).toBe(
      'Pool.example.com "p4" is invalid: spec.maxReplicas: Invalid value: "integer": at most 3',
    );
  });

  const kubectl = kubectlPath();
  it.skipIf(!kubectl)('kubectl apply prints the rule failures as kube-apiserver words them', () => {
    const file = join(srv.dir, 'pool.yaml');
    writeFileSync(
      file,
      'apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: p9, namespace: default}\nspec: {minReplicas: 3, maxReplicas: 1}\n',
    );
    const r = spawnSync(kubectl!, ['apply', '-f', file], {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: srv.kubeconfig, HOME: srv.dir },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'The Pool "p9" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
    );
  });
});

// The four resource.k8s.io kinds through the real kubectl against `kubesim serve`: created from a
// manifest, listed with upstream's printer columns, read back as YAML with what was written, used by
// pods (a shared claim and one made from a template by the ResourceClaim controller, both allocated by
// the scheduler and reserved), released when the pods go, and deleted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServeProcess, builtCli, kubectlAt, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

const DRA = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0000-gpu.example.com}
spec:
  driver: gpu.example.com
  nodeName: node-0000
  pool: {name: node-0000, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {model: {string: H100}}, capacity: {memory: {value: 80Gi}}}
  - {name: gpu-1, attributes: {model: {string: H100}}, capacity: {memory: {value: 80Gi}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0001-gpu.example.com}
spec:
  driver: gpu.example.com
  nodeName: node-0001
  pool: {name: node-0001, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {model: {string: H100}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, exactly: {deviceClassName: gpu.example.com}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-gpus, namespace: default}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}
`;

const pod = (name: string, claim: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default}
spec:
  containers:
  - {name: c, image: busybox, resources: {claims: [{name: gpu}]}}
  resourceClaims:
  - {name: gpu, ${claim}}
`;

describe.skipIf(!builtCli || !kubectl)('kubectl and the resource.k8s.io kinds against kubesim serve', () => {
  let srv: ServeProcess;
  let dir: string;
  const { run: k, ok } = kubectlAt(kubectl!, () => srv.kubeconfig);
  const until = async (args: string[], test: (out: string) => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    let last = '';
    while (Date.now() < end) {
      const r = k(...args);
      last = r.out + r.err;
      if (r.code === 0 && test(r.out)) return r.out;
      await new Promise((res) => setTimeout(res, 300));
    }
    throw new Error(`kubectl ${args.join(' ')} never matched; last output:\n${last}`);
  };

  beforeAll(async () => {
    srv = await startServe(['--speed', '10']);
    dir = srv.dir;
    writeFileSync(join(dir, 'dra.yaml'), DRA);
    writeFileSync(
      join(dir, 'pods.yaml'),
      `${pod('shared', 'resourceClaimName: two-gpus')}---\n${pod('own', 'resourceClaimTemplateName: one-gpu')}`,
    );
  });
  afterAll(async () => {
    await srv?.stop();
  });

  // AGE is the served cluster's (simulated) age at --speed 10: on a busy machine, where each kubectl
  // run takes seconds, it passes a minute and kubectl prints 2m3s or 12m, so any duration is taken
  it('creates the four kinds and lists them with upstream’s columns', () => {
    expect(ok('apply', '-f', join(dir, 'dra.yaml'))).toBe(
      [
        'deviceclass.resource.k8s.io/gpu.example.com created',
        'resourceslice.resource.k8s.io/node-0000-gpu.example.com created',
        'resourceslice.resource.k8s.io/node-0001-gpu.example.com created',
        'resourceclaimtemplate.resource.k8s.io/one-gpu created',
        'resourceclaim.resource.k8s.io/two-gpus created',
        '',
      ].join('\n'),
    );
    expect(ok('get', 'deviceclasses').split('\n')[0]).toMatch(/^NAME\s+AGE$/);
    const slices = ok('get', 'resourceslices').split('\n');
    expect(slices[0]).toMatch(/^NAME\s+NODE\s+DRIVER\s+POOL\s+AGE$/);
    expect(slices[1]).toMatch(
      /^node-0000-gpu\.example\.com\s+node-0000\s+gpu\.example\.com\s+node-0000\s+(?:\d+[smhd])+$/,
    );
    expect(ok('get', 'resourceclaimtemplates').split('\n')[0]).toMatch(/^NAME\s+AGE$/);
    expect(ok('get', 'resourceclaims')).toMatch(
      /^NAME\s+STATE\s+AGE\ntwo-gpus\s+pending\s+(?:\d+[smhd])+\n$/,
    );
    // read back as written (v1 stored, defaults filled in)
    const claim = parseYaml(ok('get', 'resourceclaim', 'two-gpus', '-o', 'yaml'));
    expect(claim.apiVersion).toBe('resource.k8s.io/v1');
    expect(claim.spec.devices.requests).toEqual([
      {
        name: 'gpu',
        exactly: { deviceClassName: 'gpu.example.com', count: 2, allocationMode: 'ExactCount' },
      },
    ]);
    const slice = parseYaml(ok('get', 'resourceslice', 'node-0000-gpu.example.com', '-o', 'yaml'));
    expect(slice.spec.devices[0]).toEqual({
      name: 'gpu-0',
      attributes: { model: { string: 'H100' } },
      capacity: { memory: { value: '80Gi' } },
    });
    const cls = parseYaml(ok('get', 'deviceclass', 'gpu.example.com', '-o', 'yaml'));
    expect(cls.spec.selectors).toEqual([{ cel: { expression: 'device.driver == "gpu.example.com"' } }]);
  });

  it('pods get their claims allocated and reserved, and release them when deleted', async () => {
    ok('apply', '-f', join(dir, 'pods.yaml'));
    await until(['get', 'pods'], (o) => /shared\s+1\/1\s+Running/.test(o) && /own\s+1\/1\s+Running/.test(o));
    const claims = ok('get', 'resourceclaims');
    expect(claims).toMatch(/two-gpus\s+allocated,reserved/);
    // made by the ResourceClaim controller from the template: <pod>-<claim>-<5 characters>
    expect(claims).toMatch(/own-gpu-[a-z0-9]{5}\s+allocated,reserved/);
    const shared = parseYaml(ok('get', 'resourceclaim', 'two-gpus', '-o', 'yaml'));
    expect(
      shared.status.allocation.devices.results.map(
        (r: { pool: string; device: string }) => `${r.pool}/${r.device}`,
      ),
    ).toEqual(['node-0000/gpu-0', 'node-0000/gpu-1']);
    expect(shared.status.reservedFor).toEqual([
      { resource: 'pods', name: 'shared', uid: expect.any(String) },
    ]);
    expect(ok('get', 'pod', 'shared', '-o', 'jsonpath={.spec.nodeName}')).toBe('node-0000');
    expect(ok('get', 'pod', 'own', '-o', 'jsonpath={.spec.nodeName}')).toBe('node-0001');

    ok('delete', '-f', join(dir, 'pods.yaml'), '--wait=false');
    // the shared claim is deallocated once its only consumer is gone; the generated one is deleted
    await until(['get', 'resourceclaims'], (o) =>
      /^NAME\s+STATE\s+AGE\ntwo-gpus\s+pending\s+(?:\d+[smhd])+\n$/.test(o),
    );
  });

  it('deletes them', async () => {
    ok('delete', '-f', join(dir, 'dra.yaml'));
    for (const kind of ['deviceclasses', 'resourceslices', 'resourceclaimtemplates', 'resourceclaims'])
      await until(['get', kind], (o) => o === '');
  });
});

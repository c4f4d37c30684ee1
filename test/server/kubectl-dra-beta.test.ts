// resource.k8s.io/v1beta1 and v1beta2 through the real kubectl against `kubesim serve`. As
// kube-apiserver v1.34, the server serves only v1 unless `--runtime-config` turns the betas on
// (upstream: pkg/controlplane/instance.go betaAPIGroupVersionsDisabledByDefault); then manifests
// written at either beta apply, are stored as v1, and read back in the version asked for.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServeProcess, builtCli, cli, kubectlAt, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

const CLASS_V1BETA2 = `apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
`;

const BETA1 = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-0000-gpu.example.com}
spec:
  driver: gpu.example.com
  nodeName: node-0000
  pool: {name: node-0000, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic: {attributes: {model: {string: H100}}, capacity: {memory: {value: 80Gi}}}
  - name: gpu-1
    basic: {attributes: {model: {string: H100}}}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.example.com}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: two-gpus, namespace: default}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, count: 2}
`;

describe.skipIf(!builtCli || !kubectl)('resource.k8s.io beta versions and kubectl', () => {
  describe('by default (as kube-apiserver v1.34)', () => {
    let srv: ServeProcess;
    const { run } = kubectlAt(kubectl!, () => srv.kubeconfig);
    beforeAll(async () => {
      srv = await startServe(['--speed', '10']);
      writeFileSync(join(srv.dir, 'beta1.yaml'), BETA1);
    });
    afterAll(async () => {
      await srv?.stop();
    });

    it('serves only v1, so a v1beta1 manifest has no match', () => {
      const versions = run('api-versions').out.split('\n');
      expect(versions.filter((v) => v.startsWith('resource.k8s.io/'))).toEqual(['resource.k8s.io/v1']);
      // kubectl's schema check of an unserved version falls back to /openapi/v2 in protobuf,
      // which holds no v1beta1 definitions, so the mapping answers (as with --validate=false)
      const r = run('apply', '-f', join(srv.dir, 'beta1.yaml'));
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(
        'resource mapping not found for name: "node-0000-gpu.example.com" namespace: "" from',
      );
      expect(r.err).toContain('no matches for kind "ResourceSlice" in version "resource.k8s.io/v1beta1"');
    });
  });

  describe('with --runtime-config resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true', () => {
    let srv: ServeProcess;
    const { ok } = kubectlAt(kubectl!, () => srv.kubeconfig);
    beforeAll(async () => {
      srv = await startServe([
        '--speed',
        '10',
        '--runtime-config',
        'resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true',
      ]);
      writeFileSync(join(srv.dir, 'class.yaml'), CLASS_V1BETA2);
      writeFileSync(join(srv.dir, 'beta1.yaml'), BETA1);
    });
    afterAll(async () => {
      await srv?.stop();
    });

    it('lists the betas in discovery after v1', () => {
      const versions = ok('api-versions').split('\n');
      expect(versions.filter((v) => v.startsWith('resource.k8s.io/'))).toEqual([
        'resource.k8s.io/v1',
        'resource.k8s.io/v1beta1',
        'resource.k8s.io/v1beta2',
      ]);
      const group = JSON.parse(ok('get', '--raw', '/apis/resource.k8s.io'));
      expect(group.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta2', 'v1beta1']);
      expect(group.preferredVersion.version).toBe('v1');
      const beta1 = JSON.parse(ok('get', '--raw', '/apis/resource.k8s.io/v1beta1'));
      expect(beta1.resources.map((r: { name: string }) => r.name).sort()).toEqual([
        'deviceclasses',
        'resourceclaims',
        'resourceclaims/status',
        'resourceclaimtemplates',
        'resourceslices',
      ]);
    });

    it('applies v1beta2 and v1beta1 manifests and stores them as v1', () => {
      expect(ok('apply', '-f', join(srv.dir, 'class.yaml'))).toBe(
        'deviceclass.resource.k8s.io/gpu.example.com created\n',
      );
      expect(ok('apply', '-f', join(srv.dir, 'beta1.yaml'))).toBe(
        [
          'resourceslice.resource.k8s.io/node-0000-gpu.example.com created',
          'resourceclaimtemplate.resource.k8s.io/one-gpu created',
          'resourceclaim.resource.k8s.io/two-gpus created',
          '',
        ].join('\n'),
      );
      // kubectl reads the preferred version, v1: requests under `exactly`, devices without `basic`
      const claim = parseYaml(ok('get', 'resourceclaim', 'two-gpus', '-o', 'yaml'));
      expect([claim.apiVersion, claim.spec.devices.requests[0].exactly]).toEqual([
        'resource.k8s.io/v1',
        { deviceClassName: 'gpu.example.com', count: 2, allocationMode: 'ExactCount' },
      ]);
      const slice = parseYaml(ok('get', 'resourceslice', 'node-0000-gpu.example.com', '-o', 'yaml'));
      expect(slice.spec.devices.map((d: object) => Object.keys(d).sort().join(' '))).toEqual([
        'attributes capacity name',
        'attributes name',
      ]);
    });

    it('reads each version in its own shape', () => {
      const claim = parseYaml(ok('get', 'resourceclaims.v1beta1.resource.k8s.io', 'two-gpus', '-o', 'yaml'));
      expect(claim.apiVersion).toBe('resource.k8s.io/v1beta1');
      expect(claim.spec.devices.requests).toEqual([
        { name: 'gpu', deviceClassName: 'gpu.example.com', count: 2, allocationMode: 'ExactCount' },
      ]);
      const tmpl = parseYaml(
        ok('get', 'resourceclaimtemplates.v1beta1.resource.k8s.io', 'one-gpu', '-o', 'yaml'),
      );
      expect(tmpl.spec.spec.devices.requests).toEqual([
        { name: 'gpu', deviceClassName: 'gpu.example.com', count: 1, allocationMode: 'ExactCount' },
      ]);
      const slice = parseYaml(
        ok('get', 'resourceslices.v1beta1.resource.k8s.io', 'node-0000-gpu.example.com', '-o', 'yaml'),
      );
      expect(slice.spec.devices).toEqual([
        {
          name: 'gpu-0',
          basic: { attributes: { model: { string: 'H100' } }, capacity: { memory: { value: '80Gi' } } },
        },
        { name: 'gpu-1', basic: { attributes: { model: { string: 'H100' } } } },
      ]);
      const beta2 = parseYaml(ok('get', 'resourceclaims.v1beta2.resource.k8s.io', 'two-gpus', '-o', 'yaml'));
      expect(beta2.apiVersion).toBe('resource.k8s.io/v1beta2');
      expect(beta2.spec.devices.requests[0].exactly.count).toBe(2);
      const cls = parseYaml(
        ok('get', 'deviceclasses.v1beta2.resource.k8s.io', 'gpu.example.com', '-o', 'yaml'),
      );
      expect(cls.apiVersion).toBe('resource.k8s.io/v1beta2');
      // a list at v1beta1 converts each item
      const list = JSON.parse(
        ok('get', '--raw', '/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims'),
      );
      expect(
        list.items.map(
          (i: { apiVersion?: string; spec: { devices: { requests: object[] } } }) =>
            i.spec.devices.requests[0],
        ),
      ).toEqual([
        { name: 'gpu', deviceClassName: 'gpu.example.com', count: 2, allocationMode: 'ExactCount' },
      ]);
    });

    it('watches at v1beta1 in v1beta1’s shape', () => {
      const events = ok(
        'get',
        '--raw',
        '/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims?watch=true&timeoutSeconds=1',
      )
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(
        events.map((e) => [e.type, e.object.apiVersion, e.object.spec.devices.requests[0].count]),
      ).toEqual([['ADDED', 'resource.k8s.io/v1beta1', 2]]);
    });

    it('re-applies a v1beta1 slice as unchanged, and a change in it as configured', () => {
      // the slice only: a claim's requests are an atomic list with defaults filled in
      // (allocationMode), so kubectl's three-way patch sends them again ("configured")
      writeFileSync(join(srv.dir, 'slice.yaml'), BETA1.split('---\n')[0]);
      expect(ok('apply', '-f', join(srv.dir, 'slice.yaml'))).toBe(
        'resourceslice.resource.k8s.io/node-0000-gpu.example.com unchanged\n',
      );
      writeFileSync(join(srv.dir, 'slice.yaml'), BETA1.split('---\n')[0].replace('gpu-1', 'gpu-9'));
      expect(ok('apply', '-f', join(srv.dir, 'slice.yaml'))).toBe(
        'resourceslice.resource.k8s.io/node-0000-gpu.example.com configured\n',
      );
      const slice = parseYaml(ok('get', 'resourceslice', 'node-0000-gpu.example.com', '-o', 'yaml'));
      expect(slice.spec.devices.map((d: { name: string }) => d.name)).toEqual(['gpu-0', 'gpu-9']);
      expect(slice.spec.devices[1]).toEqual({ name: 'gpu-9', attributes: { model: { string: 'H100' } } });
    });
  });

  it('refuses a --runtime-config it cannot honour, naming it', () => {
    const r = spawnSync(process.execPath, [cli, 'serve', '--runtime-config', 'batch/v1beta1=true'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      '--runtime-config: "batch/v1beta1" is not a group version kubesim turns on or off',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

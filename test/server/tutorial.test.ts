// The first page of every Kubernetes tutorial, typed into kubectl 1.31, 1.32 and 1.33 (the
// machine image's `kubectl.1.XX`), each against a fresh `kubesim serve`. kubectl 1.32 and 1.33
// send the bodies of `kubectl create <generator>` as protobuf; 1.31 sends JSON.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from '../helpers/crd.js';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

const VERSIONS = ['1.31', '1.32', '1.33'];
const DIRS = ['/usr/lib/google-cloud-sdk/bin', ...(process.env.PATH ?? '').split(':')];

/** kubectl.1.XX from the machine image; in CI a missing one fails the suite. */
function kubectlOf(version: string): string | undefined {
  for (const d of DIRS) if (existsSync(join(d, `kubectl.${version}`))) return join(d, `kubectl.${version}`);
  if (process.env.CI) throw new Error(`kubectl.${version} is not installed`);
  console.warn(`skipping the kubectl ${version} tutorial: kubectl.${version} not found`);
  return undefined;
}

const CRD = widgetCrd(
  `    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            required: [size]
            properties:
              size: {type: integer, minimum: 1, description: How big the widget is.}
              color: {type: string, enum: [red, blue], default: red}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
`,
  ['wg'],
);

const WIDGETS = `apiVersion: example.com/v1
kind: Widget
metadata: {name: small, namespace: demo}
spec: {size: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: big, namespace: demo}
spec: {size: 9, color: blue}
`;

const BAD_WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: bad, namespace: demo}
spec: {size: 0, color: pink}
`;

for (const version of VERSIONS) {
  const kubectl = kubectlOf(version);
  describe.skipIf(!builtCli || !kubectl)(`a tutorial session with kubectl ${version}`, () => {
    let srv: ServeProcess;
    const k = (...args: string[]) => {
      const r = spawnSync(kubectl!, args, {
        encoding: 'utf8',
        timeout: 90_000,
        env: { ...process.env, KUBECONFIG: srv.kubeconfig, HOME: srv.dir },
      });
      return { code: r.status, out: r.stdout, err: r.stderr };
    };
    const ok = (...args: string[]) => {
      const r = k(...args);
      if (r.code !== 0) throw new Error(`kubectl ${version} ${args.join(' ')} → ${r.code}: ${r.err}`);
      return r.out;
    };

    beforeAll(async () => {
      srv = await startServe(['--speed', '20']);
      for (const [f, text] of [
        ['crd.yaml', CRD],
        ['widgets.yaml', WIDGETS],
        ['bad.yaml', BAD_WIDGET],
      ])
        writeFileSync(join(srv.dir, f!), text!);
    }, 240_000);
    afterAll(async () => {
      await srv?.stop();
    });

    it('kubectl create namespace|deployment|configmap|secret|job|cronjob', () => {
      expect(ok('create', 'namespace', 'demo')).toBe('namespace/demo created\n');
      expect(ok('-n', 'demo', 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2')).toBe(
        'deployment.apps/web created\n',
      );
      expect(ok('-n', 'demo', 'create', 'configmap', 'cfg', '--from-literal=greeting=hello')).toBe(
        'configmap/cfg created\n',
      );
      expect(ok('-n', 'demo', 'create', 'secret', 'generic', 'pw', '--from-literal=password=s3cret')).toBe(
        'secret/pw created\n',
      );
      expect(ok('-n', 'demo', 'create', 'job', 'once', '--image=busybox')).toBe('job.batch/once created\n');
      expect(ok('-n', 'demo', 'create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *')).toBe(
        'cronjob.batch/tick created\n',
      );
      expect(ok('-n', 'demo', 'get', 'configmap', 'cfg', '-o', 'jsonpath={.data.greeting}')).toBe('hello');
      expect(
        Buffer.from(
          ok('-n', 'demo', 'get', 'secret', 'pw', '-o', 'jsonpath={.data.password}'),
          'base64',
        ).toString(),
      ).toBe('s3cret');
      expect(ok('-n', 'demo', 'get', 'cronjob', 'tick', '-o', 'jsonpath={.spec.schedule}')).toBe(
        '*/5 * * * *',
      );
    });

    it('expose, scale, set image, rollout status', () => {
      expect(ok('-n', 'demo', 'expose', 'deployment', 'web', '--port=80', '--target-port=8080')).toBe(
        'service/web exposed\n',
      );
      expect(ok('-n', 'demo', 'get', 'service', 'web', '-o', 'jsonpath={.spec.ports[0].targetPort}')).toBe(
        '8080',
      );
      expect(ok('-n', 'demo', 'scale', 'deployment', 'web', '--replicas=3')).toBe(
        'deployment.apps/web scaled\n',
      );
      // `kubectl create deployment` names the container after the image
      expect(ok('-n', 'demo', 'set', 'image', 'deployment/web', 'nginx=nginx:1.28')).toBe(
        'deployment.apps/web image updated\n',
      );
      expect(ok('-n', 'demo', 'rollout', 'status', 'deployment/web', '--timeout=60s')).toContain(
        'deployment "web" successfully rolled out',
      );
      expect(ok('-n', 'demo', 'get', 'deployment', 'web', '-o', 'jsonpath={.status.updatedReplicas}')).toBe(
        '3',
      );
    });

    it('top: node and pod usage from metrics.k8s.io', () => {
      ok('-n', 'demo', 'set', 'resources', 'deployment/web', '--requests=cpu=100m,memory=64Mi');
      ok('-n', 'demo', 'rollout', 'status', 'deployment/web', '--timeout=60s');
      expect(ok('top', 'nodes')).toMatch(/^NAME\s+CPU\(cores\)\s+CPU(\(%\)|%)?\s+MEMORY\(bytes\)/);
      const pods = ok('-n', 'demo', 'top', 'pods', '-l', 'app=web');
      expect(pods.split('\n').filter((l) => /^web-\S+\s+100m\s+64Mi/.test(l))).toHaveLength(3);
    });

    it('autoscale posts autoscaling/v1 (stored as v2, read back as v1); get componentstatuses', () => {
      expect(
        ok('-n', 'demo', 'autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=70'),
      ).toBe('horizontalpodautoscaler.autoscaling/web autoscaled\n');
      expect(ok('-n', 'demo', 'get', 'hpa', 'web')).toMatch(
        /\nweb\s+Deployment\/web\s+cpu: (<unknown>|\d+%)\/70%\s+2\s+5\s+\d+/,
      );
      const v2 = JSON.parse(ok('-n', 'demo', 'get', 'hpa', 'web', '-o', 'json'));
      expect(v2.apiVersion).toBe('autoscaling/v2');
      expect(v2.spec.metrics).toEqual([
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ]);
      const v1 = JSON.parse(
        ok('get', '--raw', '/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/web'),
      );
      expect(v1).toMatchObject({
        apiVersion: 'autoscaling/v1',
        spec: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
      });
      expect(v1.spec.metrics).toBeUndefined();
      ok('-n', 'demo', 'delete', 'hpa', 'web');
      const cs = k('get', 'componentstatuses');
      expect(cs.code).toBe(0);
      expect(cs.err).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
      expect(cs.out).toMatch(
        /^NAME\s+STATUS\s+MESSAGE\s+ERROR\s*\nscheduler\s+Healthy\s+ok\s*\ncontroller-manager\s+Healthy\s+ok\s*\netcd-0\s+Healthy\s+ok\s*\n$/,
      );
    });

    it('apply a CRD and its custom resources: Established, printer columns, schema errors, scale', () => {
      ok('apply', '-f', join(srv.dir, 'crd.yaml'));
      expect(ok('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s')).toContain(
        'condition met',
      );
      expect(ok('apply', '-f', join(srv.dir, 'widgets.yaml'))).toBe(
        'widget.example.com/small created\nwidget.example.com/big created\n',
      );
      expect(ok('-n', 'demo', 'get', 'widgets')).toMatch(
        /^NAME\s+SIZE\s+COLOR\s*\nbig\s+9\s+blue\s*\nsmall\s+1\s+red\s*\n$/,
      );
      const bad = k('apply', '-f', join(srv.dir, 'bad.yaml'));
      expect(bad.code).not.toBe(0);
      expect(bad.err).toContain(
        'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
      );
      expect(bad.err).toContain('spec.color: Unsupported value: "pink": supported values: "red", "blue"');
      expect(ok('-n', 'demo', 'scale', 'widget', 'big', '--replicas=2')).toBe(
        'widget.example.com/big scaled\n',
      );
      expect(ok('-n', 'demo', 'get', 'wg', 'big', '-o', 'jsonpath={.spec.replicas}')).toBe('2');
    });

    it('explain fields of built-in and custom kinds', () => {
      const containers = ok('explain', 'pod.spec.containers');
      expect(containers).toContain('FIELD: containers <[]Container>');
      expect(containers).toContain('List of containers belonging to the pod.');
      expect(ok('explain', 'deployment.spec.strategy.rollingUpdate.maxSurge')).toContain(
        'The maximum number of pods that can be scheduled above',
      );
      const widget = ok('explain', 'widget.spec');
      expect(widget).toContain('What the widget should be.');
      expect(widget).toMatch(/size\s+<integer> -required-/);
    });

    it('explain --output=plaintext-openapiv2 reads /openapi/v2 as protobuf; an unserved version: no matches', () => {
      // client-go's OpenAPISchema() accepts gnostic's protobuf message only (406 before)
      const ports = ok('explain', 'pods.spec.containers.ports', '--output=plaintext-openapiv2');
      expect(ports).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nRESOURCE: ports <\[\]Object>\n/);
      expect(ports).toMatch(/FIELDS:\n\s+containerPort\s+<integer> -required-\n/);
      // custom kinds' definitions are in it too
      expect(ok('explain', 'widget.spec', '--output=plaintext-openapiv2')).toMatch(
        /size\s+<integer> -required-/,
      );
      // resource.k8s.io/v1beta1 is not served (no --runtime-config): its definitions are not in
      // the document either, so kubectl's validation passes it to the mapping, as upstream's
      writeFileSync(
        join(srv.dir, 'beta.yaml'),
        'apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu\n',
      );
      const beta = k('apply', '-f', join(srv.dir, 'beta.yaml'));
      expect(beta.code).toBe(1);
      expect(beta.err).toContain('no matches for kind "DeviceClass" in version "resource.k8s.io/v1beta1"');
    });

    it('auth whoami and can-i', () => {
      expect(ok('auth', 'whoami')).toMatch(
        /Username\s+kubesim-admin\nGroups\s+\[system:masters system:authenticated\]/,
      );
      expect(ok('auth', 'can-i', 'delete', 'pods', '-n', 'demo')).toBe('yes\n');
    });

    it('delete the namespace: its objects go with it', async () => {
      expect(ok('delete', 'namespace', 'demo', '--wait=false')).toBe('namespace "demo" deleted\n');
      const end = Date.now() + 30_000;
      while (k('get', 'namespace', 'demo').code === 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 300));
      expect(k('get', 'namespace', 'demo').err).toContain('namespaces "demo" not found');
      expect(ok('get', 'deployments,configmaps,widgets', '-n', 'demo', '-o', 'name')).toBe('');
    });
  });
}

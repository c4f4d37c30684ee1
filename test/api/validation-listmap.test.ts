// List-map fields (x-kubernetes-list-type: map in v1.34's schemas): two items with the same key
// values are one entry to the apiserver, which answers `Duplicate value` (issue 29, class 3).
// Through validateObject (what create, `kubesim validate`, plan and simulate run) and the CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/api/defaults.js';
import { lookupKind } from '../../src/api/registry.js';
import { validateObject } from '../../src/api/validation.js';
import { kubesim } from '../cli/harness.js';

function errs(obj: any): string[] {
  const o = structuredClone(obj);
  applyDefaults(o);
  return validateObject(o, lookupKind(o.apiVersion, o.kind)!)
    .filter((e) => !e.warning)
    .map((e) => e.toString());
}
const spec = (extra: any = {}, container: any = {}) => ({
  containers: [{ name: 'app', image: 'nginx', ...container }],
  ...extra,
});
const pod = (s: any) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: s,
});
const template = (s: any) => ({ metadata: { labels: { app: 'a' } }, spec: s });

describe('list-map keys', () => {
  it('container ports: containerPort+protocol, protocol defaulted to TCP before comparing', () => {
    const ports = [
      { containerPort: 80 },
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 80, protocol: 'UDP' },
    ];
    expect(errs(pod(spec({}, { ports })))).toEqual([
      'spec.containers[0].ports[1]: Duplicate value: {"containerPort":80,"protocol":"TCP"}',
    ]);
    expect(errs(pod(spec({}, { ports: [{ containerPort: 80 }, { containerPort: 81 }] })))).toEqual([]);
  });

  it('hostAliases by ip, imagePullSecrets, schedulingGates and resourceClaims by name', () => {
    expect(
      errs(
        pod(
          spec({
            hostAliases: [
              { ip: '10.0.0.1', hostnames: ['a'] },
              { ip: '10.0.0.1', hostnames: ['b'] },
            ],
            imagePullSecrets: [{ name: 'reg' }, { name: 'reg' }],
            schedulingGates: [{ name: 'g' }, { name: 'g' }],
          }),
        ),
      ),
    ).toEqual([
      'spec.hostAliases[1]: Duplicate value: "10.0.0.1"',
      'spec.imagePullSecrets[1]: Duplicate value: "reg"',
      'spec.schedulingGates[1]: Duplicate value: "g"',
    ]);
  });

  it('every kind holding a pod template, and ownerReferences by uid on every kind', () => {
    const dupPorts = spec({}, { ports: [{ containerPort: 9090 }, { containerPort: 9090 }] });
    const workload = (apiVersion: string, kind: string, extra: any = {}) => ({
      apiVersion,
      kind,
      metadata: { name: 'w', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'a' } }, template: template(dupPorts), ...extra },
    });
    const inTemplate = 'spec.template.spec.containers[0].ports[1]';
    const cases: [any, string][] = [
      [workload('apps/v1', 'StatefulSet', { serviceName: 's' }), inTemplate],
      [workload('apps/v1', 'DaemonSet'), inTemplate],
      [workload('apps/v1', 'Deployment'), inTemplate],
      [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'c', namespace: 'default' },
          spec: {
            schedule: '* * * * *',
            jobTemplate: { spec: { template: template({ ...dupPorts, restartPolicy: 'Never' }) } },
          },
        },
        'spec.jobTemplate.spec.template.spec.containers[0].ports[1]',
      ],
    ];
    for (const [obj, path] of cases)
      expect(errs(obj), obj.kind).toContain(
        `${path}: Duplicate value: {"containerPort":9090,"protocol":"TCP"}`,
      );
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u1' };
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', ownerReferences: [owner, { ...owner, name: 'r2' }] },
    };
    expect(errs(cm)).toContain('metadata.ownerReferences[1]: Duplicate value: "u1"');
  });

  it('kubesim validate names the duplicate and exits non-zero', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-listmap-'));
    const f = join(dir, 'pod.yaml');
    writeFileSync(
      f,
      'apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec:\n  containers:\n    - name: web\n      image: nginx\n      ports: [{ containerPort: 8080 }, { containerPort: 8080, protocol: TCP }]\n',
    );
    const r = kubesim(['validate', f]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('spec.containers[0].ports[1]: Duplicate value');
  });
});

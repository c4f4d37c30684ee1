// List-map fields (x-kubernetes-list-type: map in v1.34's schemas) on create: kube-apiserver refuses
// duplicate keys only where a kind's Go validation does (schedulingGates, resourceClaims, a
// container's resources.claims: `Duplicate value`); duplicate container ports and env names are
// accepted with pkg/api/pod/warnings.go's warnings (its test table's rows below); other list maps
// (hostAliases, imagePullSecrets, ownerReferences) are accepted as they are. Through validateObject
// (what create, `kubesim validate`, plan and simulate run) and the CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/api/defaults.js';
import { lookupKind } from '../../src/api/registry.js';
import { validateObject } from '../../src/api/validation.js';
import { spawnSync } from 'node:child_process';
import { kubesim, root } from '../cli/harness.js';

function check(obj: any): { errors: string[]; warnings: string[] } {
  const o = structuredClone(obj);
  applyDefaults(o);
  const all = validateObject(o, lookupKind(o.apiVersion, o.kind)!);
  return {
    errors: all.filter((e) => !e.warning).map((e) => e.toString()),
    warnings: all.filter((e) => e.warning).map((e) => e.toString()),
  };
}
const errs = (obj: any) => check(obj).errors;
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

describe('list-map keys refused by validation', () => {
  it("schedulingGates, resourceClaims and a container's resources.claims by name", () => {
    expect(
      errs(
        pod(
          spec(
            {
              schedulingGates: [{ name: 'g' }, { name: 'g' }],
              resourceClaims: [
                { name: 'gpu', resourceClaimName: 'a' },
                { name: 'gpu', resourceClaimName: 'b' },
              ],
            },
            { resources: { claims: [{ name: 'gpu' }, { name: 'gpu' }] } },
          ),
        ),
      ).filter((e) => e.includes('Duplicate')),
    ).toEqual([
      'spec.containers[0].resources.claims[1]: Duplicate value: "gpu"',
      'spec.resourceClaims[1]: Duplicate value: "gpu"',
      'spec.schedulingGates[1]: Duplicate value: "g"',
    ]);
  });

  it('hostAliases, imagePullSecrets and ownerReferences duplicates are accepted, as upstream does', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u1' };
    const p = pod(
      spec({
        hostAliases: [
          { ip: '10.0.0.1', hostnames: ['a'] },
          { ip: '10.0.0.1', hostnames: ['b'] },
        ],
        imagePullSecrets: [{ name: 'reg' }, { name: 'reg' }],
      }),
    );
    p.metadata = { ...p.metadata, ownerReferences: [owner, { ...owner, name: 'r2' }] } as never;
    expect(check(p)).toEqual({ errors: [], warnings: [] });
  });
});

describe('pod warnings on list items (pkg/api/pod/warnings_test.go)', () => {
  const ports = (...containers: any[][]) => ({
    ...pod(spec()),
    spec: { containers: containers.map((p, i) => ({ name: `c${i}`, image: 'nginx', ports: p })) },
  });
  const rows: [string, any, string[]][] = [
    [
      'duplicate container ports with same port and protocol',
      ports([
        { containerPort: 80, protocol: 'UDP' },
        { containerPort: 80, protocol: 'UDP' },
      ]),
      ['spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]'],
    ],
    [
      'duplicate container ports with same port, hostPort and protocol',
      ports([
        { containerPort: 80, hostPort: 80, protocol: 'UDP' },
        { containerPort: 80, hostPort: 80, protocol: 'UDP' },
      ]),
      ['spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]'],
    ],
    [
      'duplicate container ports with same port and protocol in different containers',
      ports([{ containerPort: 80 }], [{ containerPort: 80 }]),
      ['spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]'],
    ],
    [
      'overlapping ports: one with a hostPort',
      ports([{ containerPort: 80 }, { containerPort: 80, hostPort: 80 }]),
      ['spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]'],
    ],
    [
      'dangerously ambiguous: same hostPort, one hostIP unset',
      ports([
        { containerPort: 80, hostPort: 80, hostIP: '10.0.0.1' },
        { containerPort: 80, hostPort: 80 },
      ]),
      ['spec.containers[0].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]'],
    ],
    [
      'same port, other protocol: no warning',
      ports([
        { containerPort: 80, protocol: 'TCP' },
        { containerPort: 80, protocol: 'UDP' },
      ]),
      [],
    ],
    [
      'hostIP without hostPort',
      ports([{ containerPort: 80, hostIP: '10.0.0.1' }]),
      [
        'spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:TCP HostIP:10.0.0.1}',
      ],
    ],
  ];
  for (const [name, obj, warnings] of rows)
    it(name, () => expect(check(obj)).toEqual({ errors: [], warnings }));

  it('env: a later item hides an earlier one unless it refers to it', () => {
    const p = pod(
      spec(
        {},
        {
          env: [
            { name: 'A', value: 'a' },
            { name: 'A', value: 'b' },
            { name: 'B', value: 'x' },
            { name: 'B', value: '$(B)-more' },
            { name: 'C', value: 'c' },
            { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
        },
      ),
    );
    expect(check(p).warnings).toEqual([
      'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
      'spec.containers[0].env[5]: hides previous definition of "C", which may be dropped when using apply',
    ]);
  });

  it('every kind holding a pod template warns at its template path', () => {
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
    for (const [obj, path] of cases) {
      const r = check(obj);
      expect(r.errors, obj.kind).toEqual([]);
      expect(r.warnings, obj.kind).toEqual([
        `${path}: duplicate port definition with ${path.replace('ports[1]', 'ports[0]')}`,
      ]);
    }
  });

  it('kubesim validate accepts duplicate ports with the warning (exit 0)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-listmap-'));
    const f = join(dir, 'pod.yaml');
    writeFileSync(
      f,
      'apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec:\n  containers:\n    - name: web\n      image: nginx\n      ports: [{ containerPort: 8080 }, { containerPort: 8080, protocol: TCP }]\n',
    );
    const r = kubesim(['validate', f]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toContain('warning: ');
    expect(r.stdout + r.stderr).toContain(
      'spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]',
    );
  });
});

describe("the list-map table is v1.34's", () => {
  it('src/api/listmap-table.ts is what scripts/gen-listmaps.mjs derives from the pinned swagger', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'gen-listmaps.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

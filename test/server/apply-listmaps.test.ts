// Server-side apply and list maps, with the real kubectl against `kubesim serve`: an applied
// configuration repeating a list-map key is refused as kube-apiserver refuses it (structured-merge-
// diff's typed patch object: 500, `Error from server: failed to create typed patch object …`), and
// list maps with compound keys (container ports: containerPort + protocol) merge by the whole key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from '../helpers/crd.js';
import { type ServeProcess, builtCli, kubectlAt, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

/** a Deployment whose container `app` has the given env and ports lines (YAML, indented 8) */
function deploy(name: string, env: string, ports: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/pause:3.10
        env:
${env}
        ports:
${ports}
`;
}

describe.skipIf(!builtCli || !kubectl)('server-side apply and list maps (real kubectl)', () => {
  let srv: ServeProcess;
  let k: ReturnType<typeof kubectlAt>;
  const file = (name: string, text: string) => {
    const f = join(srv.dir, name);
    writeFileSync(f, text);
    return f;
  };
  /** `kubectl apply --server-side` of deploy(name, env, ports): its exit code and stderr */
  const applied = (name: string, env: string, ports: string) => {
    const f = file(`${name}.yaml`, deploy(name, env, ports));
    const r = k.run('apply', '--server-side', '-f', f);
    return { file: f, code: r.code, err: r.err.trim() };
  };
  beforeAll(async () => {
    srv = await startServe(['--paused']);
    k = kubectlAt(kubectl!, () => srv.kubeconfig);
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
  });

  const typed = (name: string) =>
    `Error from server: failed to create typed patch object (default/${name}; apps/v1, Kind=Deployment): `;
  const app = '.spec.template.spec.containers[name="app"]';
  // name, env lines, ports lines, what kubectl prints
  const REFUSED: [string, string, string, string][] = [
    [
      'dup-env',
      '        - {name: A, value: "1"}\n        - {name: B, value: "2"}\n        - {name: A, value: "3"}',
      '        - {containerPort: 80}',
      `${typed('dup-env')}${app}.env: duplicate entries for key [name="A"]`,
    ],
    // a port repeated with its protocol defaulted (TCP); two errors are listed
    [
      'dup-ports',
      '        - {name: A, value: "1"}\n        - {name: A, value: "2"}',
      '        - {containerPort: 53}\n        - {containerPort: 53, protocol: TCP}',
      `${typed('dup-ports')}errors:\n  ${app}.env: duplicate entries for key [name="A"]\n  ${app}.ports: duplicate entries for key [containerPort=53,protocol="TCP"]`,
    ],
    // an item without any key field, by its index
    [
      'no-key',
      '        - {value: "1"}',
      '        - {containerPort: 80}',
      `${typed('no-key')}${app}.env: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn't have default values for any key fields)`,
    ],
  ];

  it.each(REFUSED)(
    '%s: refused with 500 as kube-apiserver does, nothing created',
    (name, env, ports, want) => {
      const r = applied(name, env, ports);
      expect(r.code).toBe(1);
      expect(r.err).toBe(want);
      expect(k.run('get', 'deploy', name).code).toBe(1);
      // the status kube-apiserver gives a plain error (ErrorToAPIStatus): 500, no reason
      const v = k.run('apply', '--server-side', '-f', r.file, '-v=8');
      expect(v.err).toMatch(/Response Status: 500 Internal Server Error/);
    },
  );

  it('client-side apply of the same duplicates still works (only apply types the object)', () => {
    const f = file(
      'csa.yaml',
      deploy(
        'csa',
        '        - {name: A, value: "1"}\n        - {name: A, value: "2"}',
        '        - {containerPort: 80}',
      ),
    );
    expect(k.ok('apply', '-f', f)).toBe('deployment.apps/csa created\n');
  });

  it('ports 53/TCP and 53/UDP are two list-map items: both kept, both owned by their full key', () => {
    const f = file(
      'dns.yaml',
      deploy(
        'dns',
        '        - {name: A, value: "1"}',
        '        - {name: dns-tcp, containerPort: 53, protocol: TCP}\n        - {name: dns, containerPort: 53, protocol: UDP}',
      ),
    );
    expect(k.ok('apply', '--server-side', '-f', f)).toBe('deployment.apps/dns serverside-applied\n');
    const ports = () =>
      JSON.parse(k.ok('get', 'deploy', 'dns', '-o', 'jsonpath={.spec.template.spec.containers[0].ports}'));
    expect(ports()).toEqual([
      { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
    ]);
    const mf = JSON.parse(k.ok('get', 'deploy', 'dns', '--show-managed-fields', '-o', 'json')).metadata
      .managedFields as { manager: string; fieldsV1: Record<string, any> }[];
    const app = mf.find((m) => m.manager === 'kubectl')!.fieldsV1['f:spec']['f:template']['f:spec'][
      'f:containers'
    ]['k:{"name":"app"}'];
    expect(
      Object.keys(app['f:ports'])
        .filter((f) => f.startsWith('k:'))
        .sort(),
    ).toEqual(['k:{"containerPort":53,"protocol":"TCP"}', 'k:{"containerPort":53,"protocol":"UDP"}']);
    // a second manager applies only the UDP port's name: it merges into that item, the TCP one stays
    const other = file(
      'dns-other.yaml',
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dns
spec:
  template:
    spec:
      containers:
      - name: app
        ports:
        - {containerPort: 53, protocol: UDP, hostPort: 5353}
`,
    );
    k.ok('apply', '--server-side', '--field-manager=other', '-f', other);
    expect(ports()).toEqual([
      { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
      { name: 'dns', containerPort: 53, protocol: 'UDP', hostPort: 5353 },
    ]);
    // the first manager drops the TCP port: only that item goes
    const f2 = file(
      'dns2.yaml',
      deploy(
        'dns',
        '        - {name: A, value: "1"}',
        '        - {name: dns, containerPort: 53, protocol: UDP}',
      ),
    );
    k.ok('apply', '--server-side', '-f', f2);
    expect(ports()).toEqual([{ name: 'dns', containerPort: 53, protocol: 'UDP', hostPort: 5353 }]);
  });

  // x-kubernetes-list-type: set (typed/helpers.go setItemToPathElement): the value is the key
  it('sets: a finalizer applied twice is refused; two managers each own their own finalizer', () => {
    const cm = (name: string, fins: string[]) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  finalizers: [${fins.join(', ')}]\ndata: {a: "1"}\n`;
    const dup = k.run(
      'apply',
      '--server-side',
      '-f',
      file('fin-dup.yaml', cm('fin-dup', ['example.com/a', 'example.com/b', 'example.com/a'])),
    );
    expect(dup.code).toBe(1);
    expect(dup.err.trim()).toBe(
      'Error from server: failed to create typed patch object (default/fin-dup; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate entries for key [="example.com/a"]',
    );
    expect(k.run('get', 'cm', 'fin-dup').code).toBe(1);
    k.ok('apply', '--server-side', '-f', file('fin.yaml', cm('fin', ['example.com/a'])));
    k.ok(
      'apply',
      '--server-side',
      '--field-manager=other',
      '-f',
      file('fin-o.yaml', cm('fin', ['example.com/b'])),
    );
    const fins = () => k.ok('get', 'cm', 'fin', '-o', 'jsonpath={.metadata.finalizers}');
    expect(JSON.parse(fins())).toEqual(['example.com/a', 'example.com/b']);
    const mf = JSON.parse(k.ok('get', 'cm', 'fin', '--show-managed-fields', '-o', 'json')).metadata
      .managedFields as { manager: string; fieldsV1: Record<string, any> }[];
    expect(mf.find((m) => m.manager === 'other')!.fieldsV1['f:metadata']['f:finalizers']).toEqual({
      'v:"example.com/b"': {},
    });
    // the first manager leaves its finalizer out: only that one goes
    k.ok('apply', '--server-side', '-f', file('fin2.yaml', cm('fin', [])));
    expect(JSON.parse(fins())).toEqual(['example.com/b']);
    k.ok('patch', 'cm', 'fin', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
  });

  it('atomic maps: a Service selector is owned whole, conflicts whole and is replaced whole', () => {
    const svc = (selector: string) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: sel\nspec:\n  selector: ${selector}\n  ports:\n  - {port: 80}\n`;
    k.ok(
      'apply',
      '--server-side',
      '--field-manager=a',
      '-f',
      file('sel-a.yaml', svc('{app: web, tier: fe}')),
    );
    const managed = () =>
      JSON.parse(k.ok('get', 'svc', 'sel', '--show-managed-fields', '-o', 'json')).metadata.managedFields as {
        manager: string;
        fieldsV1: Record<string, any>;
      }[];
    // ServiceSpec.selector is x-kubernetes-map-type: atomic: one field, not one per label
    expect(managed().find((m) => m.manager === 'a')!.fieldsV1['f:spec']['f:selector']).toEqual({});
    // another manager's selector with other labels conflicts on the whole map
    const other = file('sel-b.yaml', svc('{app: api}'));
    const r = k.run('apply', '--server-side', '--field-manager=b', '-f', other);
    expect(r.code).toBe(1);
    // (kubectl's advice on resolving it follows)
    expect(r.err).toMatch(/^error: Apply failed with 1 conflict: conflict with "a": \.spec\.selector\n/);
    // taken by force, it replaces the selector whole: tier: fe does not stay
    k.ok('apply', '--server-side', '--field-manager=b', '--force-conflicts', '-f', other);
    expect(JSON.parse(k.ok('get', 'svc', 'sel', '-o', 'jsonpath={.spec.selector}'))).toEqual({ app: 'api' });
    expect(managed().find((m) => m.manager === 'b')!.fieldsV1['f:spec']['f:selector']).toEqual({});
    expect(managed().find((m) => m.manager === 'a')!.fieldsV1['f:spec']['f:selector']).toBeUndefined();
    // the same value in another key order is the same value: co-owned, no conflict
    k.ok('apply', '--server-side', '--field-manager=a', '-f', file('sel-a2.yaml', svc('{app: api}')));
    k.ok('delete', 'svc', 'sel');
  });

  describe('a custom resource: list types from its CRD schema', () => {
    const CRD = widgetCrd(`    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port, protocol]
                  properties:
                    port: {type: integer}
                    protocol: {type: string}
                    name: {type: string}
                    hostPort: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              containers:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    image: {type: string}
`);
    const widget = (name: string, spec: string) =>
      `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
    beforeAll(async () => {
      k.ok('apply', '-f', file('crd.yaml', CRD));
      // until the kind is served: a deadline, not a count of tries
      const end = Date.now() + 60_000;
      while (k.run('get', 'widgets').code !== 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 200));
    }, 240_000);
    const spec = (name: string) => JSON.parse(k.ok('get', 'widget', name, '-o', 'jsonpath={.spec}'));

    it('a list-map key applied twice and a set value applied twice are refused', () => {
      const r = k.run(
        'apply',
        '--server-side',
        '-f',
        file(
          'w-dup.yaml',
          widget(
            'w-dup',
            '  ports:\n  - {port: 80, protocol: TCP}\n  - {port: 80, protocol: TCP, name: again}\n  tags: [a, a]\n',
          ),
        ),
      );
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(
        'Error from server: failed to create typed patch object (default/w-dup; example.com/v1, Kind=Widget): errors:\n' +
          '  .spec.ports: duplicate entries for key [port=80,protocol="TCP"]\n' +
          '  .spec.tags: duplicate entries for key [="a"]',
      );
      expect(k.run('get', 'widget', 'w-dup').code).toBe(1);
    });

    it('items merge by the CRD keys, sets by value, other lists are atomic', () => {
      k.ok(
        'apply',
        '--server-side',
        '-f',
        file(
          'w1.yaml',
          widget(
            'w1',
            '  ports:\n  - {port: 53, protocol: TCP, name: dns-tcp}\n  - {port: 53, protocol: UDP, name: dns}\n  tags: [a]\n  containers:\n  - {name: c, image: one}\n',
          ),
        ),
      );
      k.ok(
        'apply',
        '--server-side',
        '--field-manager=other',
        '--force-conflicts',
        '-f',
        file(
          'w1-other.yaml',
          widget(
            'w1',
            '  ports:\n  - {port: 53, protocol: UDP, hostPort: 5353}\n  tags: [b]\n  containers:\n  - {name: d}\n',
          ),
        ),
      );
      expect(spec('w1')).toEqual({
        ports: [
          { port: 53, protocol: 'TCP', name: 'dns-tcp' },
          { port: 53, protocol: 'UDP', name: 'dns', hostPort: 5353 },
        ],
        tags: ['a', 'b'],
        // atomic (no x-kubernetes-list-type in a CRD): the forced apply replaced the whole list
        containers: [{ name: 'd' }],
      });
      const mf = JSON.parse(k.ok('get', 'widget', 'w1', '--show-managed-fields', '-o', 'json')).metadata
        .managedFields as { manager: string; fieldsV1: Record<string, any> }[];
      expect(Object.keys(mf.find((m) => m.manager === 'other')!.fieldsV1['f:spec']['f:ports'])).toEqual([
        'k:{"port":53,"protocol":"UDP"}',
      ]);
    });
  });
});

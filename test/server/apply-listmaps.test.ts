// Server-side apply and list maps, with the real kubectl against `kubesim serve`: an applied
// configuration repeating a list-map key is refused as kube-apiserver refuses it (structured-merge-
// diff's typed patch object: 500, `Error from server: failed to create typed patch object …`), and
// list maps with compound keys (container ports: containerPort + protocol) merge by the whole key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});

// A scripted session of the real kubectl against `kubesim serve`: what a user types, checked by
// what kubectl prints and its exit code.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServeProcess, builtCli, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests: {cpu: 100m, memory: 64Mi}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`;

describe.skipIf(!builtCli || !kubectl)('kubectl against kubesim serve', () => {
  let srv: ServeProcess;
  let manifest: string;
  const k = (...args: string[]) => {
    const r = spawnSync(kubectl!, args, {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const ok = (...args: string[]) => {
    const r = k(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.err}`);
    return r.out;
  };
  /** poll a kubectl command until its output satisfies the test */
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
    manifest = join(srv.dir, 'deploy.yaml');
    writeFileSync(manifest, DEPLOY);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('version and nodes: the served release and the three default nodes', () => {
    const v = JSON.parse(ok('version', '-o', 'json'));
    expect(v.serverVersion).toMatchObject({
      major: '1',
      minor: '34',
      gitVersion: expect.stringMatching(/^v1\.34\.0\+kubesim-/),
    });
    const table = ok('get', 'nodes');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(table).toMatch(/node-0000\s+Ready\s+<none>/);
    expect(JSON.parse(ok('get', 'nodes', '-o', 'json')).items).toHaveLength(3);
  });

  it('auth can-i says yes, since the server allows every request', () => {
    expect(ok('auth', 'can-i', 'delete', 'deployments')).toBe('yes\n');
    expect(ok('auth', 'can-i', '--list').split('\n')[1]).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/);
  });

  it('apply, then get -w shows the pods go Pending → Running; rollout status waits for them', async () => {
    // -v=6: kubectl logs each request once answered, the watch (from the list's resourceVersion)
    // included; the logs go to stderr, the table to stdout
    const watch = spawn(kubectl!, ['get', 'pods', '-w', '-v=6'], {
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });
    let seen = '';
    let said = '';
    watch.stdout.on('data', (d) => (seen += d));
    watch.stderr.on('data', (d) => (said += d));
    try {
      // apply only once kubectl's watch is established, so that it sees the pods Pending: kubectl
      // prints nothing for an empty namespace under -w, so its output cannot tell; its request log
      // can (`GET …/pods?resourceVersion=N&watch=true 200 OK`). The deadline is a hang guard.
      const started = Date.now() + 120_000;
      const watching = /[?&]watch=true 200 OK/;
      while (Date.now() < started && !watching.test(said) && watch.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      expect(said, 'kubectl get -w never established its watch').toMatch(watching);
      expect(ok('apply', '-f', manifest)).toBe('deployment.apps/web created\nservice/web created\n');
      const end = Date.now() + 60_000;
      while (Date.now() < end && (seen.match(/\sRunning\s/g) ?? []).length < 3)
        await new Promise((r) => setTimeout(r, 200));
      const lines = seen.split('\n').filter((l) => l.startsWith('web-'));
      const first = (status: string) => lines.findIndex((l) => l.split(/\s+/)[2] === status);
      expect(first('Pending')).toBeGreaterThanOrEqual(0);
      expect(first('Running')).toBeGreaterThan(first('Pending'));
      expect(
        new Set(lines.filter((l) => l.split(/\s+/)[2] === 'Running').map((l) => l.split(/\s+/)[0])).size,
      ).toBe(3);
    } finally {
      if (watch.pid) process.kill(watch.pid, 'SIGTERM');
    }
    expect(ok('rollout', 'status', 'deploy/web', '--timeout=60s')).toContain(
      'deployment "web" successfully rolled out',
    );
  });

  it('get -o json | yaml | wide', () => {
    const list = JSON.parse(ok('get', 'pods', '-l', 'app=web', '-o', 'json'));
    expect(list.kind).toBe('List');
    expect(list.items).toHaveLength(3);
    expect(list.items.every((p: { status: { phase: string } }) => p.status.phase === 'Running')).toBe(true);
    const y = parseYaml(ok('get', 'deploy', 'web', '-o', 'yaml'));
    expect(y).toMatchObject({ kind: 'Deployment', spec: { replicas: 3 }, status: { readyReplicas: 3 } });
    const wide = ok('get', 'pods', '-o', 'wide');
    expect(wide.split('\n')[0]).toMatch(
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/,
    );
    expect(wide).toMatch(/web-\S+\s+1\/1\s+Running\s+0\s+\S+\s+10\.\d+\.\d+\.\d+\s+node-000\d/);
    expect(ok('get', 'svc', 'web')).toMatch(/web\s+ClusterIP\s+10\.96\.\d+\.\d+\s+<none>\s+80\/TCP/);
  });

  it('describe shows the events of the deployment and the pod', () => {
    expect(ok('describe', 'deploy', 'web')).toMatch(
      /ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled up replica set web-\w+ from 0 to 3/,
    );
    const pod = ok('get', 'pods', '-l', 'app=web', '-o', 'name').split('\n')[0]!;
    expect(ok('describe', pod)).toMatch(
      /Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web-/,
    );
  });

  it('scale through the scale subresource', async () => {
    expect(ok('scale', 'deploy/web', '--replicas=5')).toBe('deployment.apps/web scaled\n');
    await until(['get', 'deploy', 'web', '-o', 'jsonpath={.status.readyReplicas}'], (o) => o === '5');
  });

  it('cordon marks the node, drain evicts its pods and the ReplicaSet replaces them elsewhere', async () => {
    expect(ok('cordon', 'node-0000')).toBe('node/node-0000 cordoned\n');
    expect(ok('get', 'node', 'node-0000')).toMatch(/Ready,SchedulingDisabled/);
    const out = ok('drain', 'node-0000', '--ignore-daemonsets', '--timeout=60s');
    expect(out).toContain('node/node-0000 drained');
    await until(['get', 'pods', '-l', 'app=web', '-o', 'json'], (o) => {
      const pods = JSON.parse(o).items as { spec: { nodeName?: string }; status: { phase: string } }[];
      return (
        pods.length === 5 &&
        pods.every((p) => p.spec.nodeName !== 'node-0000' && p.status.phase === 'Running')
      );
    });
    expect(ok('uncordon', 'node-0000')).toBe('node/node-0000 uncordoned\n');
  });

  it('rollout: a new image rolls out, undo rolls back', async () => {
    ok('set', 'image', 'deploy/web', 'web=nginx:1.28');
    expect(ok('rollout', 'status', 'deploy/web', '--timeout=60s')).toContain('successfully rolled out');
    expect(ok('rollout', 'history', 'deploy/web')).toMatch(/1\s+<none>\n2\s+<none>/);
    expect(ok('rollout', 'undo', 'deploy/web')).toBe('deployment.apps/web rolled back\n');
    expect(ok('rollout', 'status', 'deploy/web', '--timeout=60s')).toContain('successfully rolled out');
    expect(ok('get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}')).toBe(
      'nginx:1.27',
    );
  });

  it('server-side apply: a second manager conflicts on replicas, --force-conflicts takes it', () => {
    const ssa = join(srv.dir, 'ssa.yaml');
    writeFileSync(
      ssa,
      DEPLOY.split('---')[0]!
        .replace('name: web', 'name: api')
        .replace(/app: web/g, 'app: api'),
    );
    expect(ok('apply', '--server-side', '-f', ssa)).toBe('deployment.apps/api serverside-applied\n');
    writeFileSync(
      ssa,
      DEPLOY.split('---')[0]!
        .replace('name: web', 'name: api')
        .replace(/app: web/g, 'app: api')
        .replace('replicas: 3', 'replicas: 2'),
    );
    const conflict = k('apply', '--server-side', '--field-manager=other', '-f', ssa);
    expect(conflict.code).not.toBe(0);
    expect(conflict.err).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    ok('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', ssa);
    expect(ok('get', 'deploy', 'api', '-o', 'jsonpath={.spec.replicas}')).toBe('2');
  });

  it('errors come back as kubectl prints them', () => {
    const nf = k('get', 'pod', 'nope');
    expect(nf.code).toBe(1);
    expect(nf.err.trim()).toBe('Error from server (NotFound): pods "nope" not found');
    const again = k('create', '-f', manifest);
    expect(again.code).toBe(1);
    expect(again.err).toContain(
      `Error from server (AlreadyExists): error when creating "${manifest}": deployments.apps "web" already exists`,
    );
    const badFile = join(srv.dir, 'bad.yaml');
    writeFileSync(badFile, DEPLOY.split('---')[0]!.replace('name: web', 'name: Bad_Name'));
    const bad = k('apply', '-f', badFile);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(
      'The Deployment "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );
  });

  it('explain names the kind from the OpenAPI document', () => {
    expect(ok('explain', 'deployment')).toMatch(/GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1/);
  });

  it("delete takes the deployment's ReplicaSets and pods along", async () => {
    expect(ok('delete', 'deploy', 'web')).toBe('deployment.apps "web" deleted\n');
    await until(['get', 'pods', '-l', 'app=web', '-o', 'name'], (o) => o.trim() === '');
    expect(ok('get', 'rs', '-l', 'app=web', '-o', 'name').trim()).toBe('');
  });
});

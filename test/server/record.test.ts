// `kubesim record` against `kubesim serve`, driven by the real kubectl while it records, then
// `kubesim simulate --replay` of the trace on a scenario's cluster, with the scenario's what-ifs
// (a smaller cluster, a lost zone) applying on top.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../../src/util/paths.js';
import { type ServeProcess, builtCli, cli, kubectlPath, startServe } from './serve-process.js';

const kubectl = kubectlPath();

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 500m, memory: 64Mi}}}]
`;

interface TraceEvent {
  at: number;
  type: string;
  object: {
    kind: string;
    metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string };
    spec?: { replicas?: number };
  };
}

describe.skipIf(!builtCli || !kubectl)('kubesim record and simulate --replay', () => {
  let srv: ServeProcess;
  let trace: { kind: string; durationSeconds: number; initial: unknown[]; events: TraceEvent[] };
  let recorder: ChildProcess;
  let recordErr = '';
  const k = (...args: string[]) => {
    const r = spawnSync(kubectl!, args, {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    srv = await startServe(['--speed', '10']);
    writeFileSync(join(srv.dir, 'deploy.yaml'), DEPLOY);
    recorder = spawn(
      process.execPath,
      [
        cli,
        'record',
        '--kubeconfig',
        srv.kubeconfig,
        '--duration',
        // a hang guard: the recording ends on Ctrl-C (SIGINT) once the kubectl actions below are done
        '180s',
        '--out',
        join(srv.dir, 'trace.yaml'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((r) => recorder.once('exit', r));
    await new Promise<void>((resolve, reject) => {
      recorder.stderr!.on('data', (d) => {
        recordErr += d;
        if (recordErr.includes('kubesim record: watching')) resolve();
      });
      recorder.once('exit', () => reject(new Error(`record exited early: ${recordErr}`)));
    });
    // what a user does while it records
    k('apply', '-f', join(srv.dir, 'deploy.yaml'));
    await sleep(1000);
    k('scale', 'deploy/web', '--replicas=4');
    k('run', 'solo', '--image=busybox', '--restart=Never');
    await sleep(1000);
    k('set', 'image', 'deploy/web', 'web=nginx:1.28');
    k('delete', 'pod', 'solo', '--wait=false');
    // the kubelet ends the pod's containers before the pod is gone (graceful deletion)
    k('wait', '--for=delete', 'pod/solo', '--timeout=120s');
    // Ctrl-C right after the last change: the recorder's final list catches what its watches had
    // not delivered yet
    recorder.kill('SIGINT');
    expect(await exited).toBe(0);
    trace = parseYaml(readFileSync(join(srv.dir, 'trace.yaml'), 'utf8'));
  }, 240_000);
  afterAll(async () => {
    if (recorder?.exitCode === null && recorder.pid) process.kill(recorder.pid, 'SIGTERM');
    await srv?.stop();
  });

  it('records the creates, the scale, the image change and the delete, timestamped and in order', () => {
    expect(recordErr).toMatch(
      new RegExp(
        `kubesim record: \\d+ events in ${trace.durationSeconds}s from http://127\\.0\\.0\\.1:\\d+ \\(\\d+ objects at the start\\)\n$`,
      ),
    );
    expect(trace).toMatchObject({ apiVersion: 'kubesim/v1', kind: 'Trace' });
    expect(trace.durationSeconds).toBeGreaterThan(0);
    expect(trace.durationSeconds).toBeLessThan(180);
    const ev = trace.events.map((e) => `${e.type} ${e.object.kind} ${e.object.metadata.name}`);
    expect(ev.filter((e) => e.endsWith(' solo'))).toEqual(['ADDED Pod solo', 'DELETED Pod solo']);
    expect(ev[0]).toBe('ADDED Deployment web');
    const replicas = trace.events
      .filter((e) => e.object.kind === 'Deployment')
      .map((e) => e.object.spec?.replicas);
    expect(replicas[0]).toBe(2);
    expect(replicas.at(-1)).toBe(4);
    // what controllers made is not in it: no ReplicaSets, no pods of the Deployment
    expect(ev.some((e) => / ReplicaSet | web-/.test(e))).toBe(false);
    const at = trace.events.map((e) => e.at);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(at[0]).toBeGreaterThan(0);
    expect(at.at(-1)).toBeLessThanOrEqual(trace.durationSeconds);
    for (const e of trace.events) {
      expect(e.object.metadata.resourceVersion).toBeUndefined();
      expect(e.object.metadata.uid).toBeUndefined();
    }
  });

  const simulate = (scenario: string) => {
    const file = join(srv.dir, 'scenario.yaml');
    writeFileSync(file, scenario);
    const r = spawnSync(
      process.execPath,
      [cli, 'simulate', file, '--replay', join(srv.dir, 'trace.yaml'), '-o', 'json', '--no-progress'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    return { result: JSON.parse(r.stdout), err: r.stderr };
  };

  it('simulate --replay plays the trace against the scenario cluster', () => {
    const { result, err } = simulate(
      'name: replay\nduration: 60s\ncluster:\n  pools:\n    - { name: node, count: 3, cpu: "4", memory: 16Gi, zones: [zone-a, zone-b, zone-c] }\n',
    );
    expect(err).toMatch(
      new RegExp(
        `^replay: .*trace\\.yaml: \\d+ objects at the start, \\d+ timeline entries over ${trace.durationSeconds}s\n`,
      ),
    );
    const labels = result.timeline.map((t: { label: string }) => t.label);
    expect(labels).toEqual(
      expect.arrayContaining([
        'replay: create Deployment default/web',
        'replay: scale default/web to 4',
        'replay: create Pod default/solo',
        'replay: delete Pod default/solo',
        'replay: rollout default/web image=nginx:1.28',
      ]),
    );
    expect(result.timeline.filter((t: { error?: string }) => t.error)).toEqual([]);
    expect(result.deployments).toMatchObject([{ name: 'default/web', replicas: 4, ready: 4 }]);
  });

  it('what-ifs apply on top: a smaller cluster leaves replicas pending, a lost zone is acted on', () => {
    const { result } = simulate(
      [
        'name: replay-what-if',
        'duration: 60s',
        'cluster:',
        '  pools:',
        '    - { name: small, count: 2, cpu: "1", memory: 4Gi, zones: [zone-a, zone-b] }',
        'timeline:',
        '  - { at: 0s, action: zoneOutage, zone: zone-b }',
        '',
      ].join('\n'),
    );
    expect(result.timeline[0].label).toBe('zone outage zone-b');
    expect(result.nodeLifecycle.markedUnknown).toBe(1);
    // 4 replicas of 500m on two 1-CPU nodes: the rollout's surge pod cannot fit
    expect(result.deployments[0].replicas).toBe(4);
    expect(result.pods.pendingAtEnd).toBeGreaterThan(0);
  });
});

describe.skipIf(!builtCli)('simulate --replay with a bad trace', () => {
  it('names the file and the event, exit 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-replay-'));
    try {
      const file = join(dir, 'trace.yaml');
      writeFileSync(
        file,
        'apiVersion: kubesim/v1\nkind: Trace\ndurationSeconds: 5\nevents:\n  - { at: 1, type: PATCHED, object: { apiVersion: v1, kind: Pod, metadata: { name: a } } }\n',
      );
      const r = spawnSync(
        process.execPath,
        [
          cli,
          'simulate',
          join(packageRoot(), 'examples/scenarios/node-failure-eviction.yaml'),
          '--replay',
          file,
        ],
        { encoding: 'utf8' },
      );
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        `kubesim: ${file}: events[0]: type: expected ADDED, MODIFIED or DELETED, got "PATCHED"\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

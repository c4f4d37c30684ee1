// The README's `kubectl get …` command captures exactly the kinds a snapshot is read for: checked
// against the loader (every built-in kind tried), against the README text, and end to end — the
// command run by the real kubectl against `kubesim serve` holding examples/snapshot/cluster.yaml,
// and its output planned to the same answer as the original file.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_KINDS } from '../../../src/api/kinds.js';
import { SNAPSHOT_KINDS, snapshotCommand, sortClusterObjects } from '../../../src/scheduler/index.js';
import { packageRoot } from '../../../src/util/paths.js';
import { type ServeProcess, builtCli, cli, kubectlPath, startServe } from '../../server/serve-process.js';

const root = packageRoot();

describe('snapshot kinds', () => {
  it('SNAPSHOT_KINDS are exactly the built-in kinds the loader keeps', () => {
    const kept = BUILTIN_KINDS.filter((row) => {
      const object = {
        apiVersion: row.group ? `${row.group}/${row.versions[0]}` : row.versions[0],
        kind: row.kind,
        metadata: { name: 'x', ...(row.namespaced ? { namespace: 'default' } : {}) },
        spec: { containers: [] },
      };
      const file = sortClusterObjects([{ object, source: { file: 'f', line: 1 } }] as never);
      const { sources: _sources, storage, resources, ...lists } = file;
      return [
        ...Object.values(lists),
        ...Object.values(storage ?? {}),
        ...Object.values(resources ?? {}),
      ].some((l) => (l as unknown[]).length > 0);
    }).map((row) => row.kind);
    expect([...kept].sort()).toEqual([...SNAPSHOT_KINDS].sort());
  });

  it('the README shows the command', () => {
    expect(snapshotCommand()).toBe(
      'kubectl get nodes,pods,services,replicasets,statefulsets,replicationcontrollers,namespaces,priorityclasses,persistentvolumes,persistentvolumeclaims,storageclasses,csinodes,csidrivers,volumeattachments,csistoragecapacities,deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices -A -o yaml > snapshot.yaml',
    );
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(snapshotCommand());
  });
});

const kubectl = kubectlPath();

describe.skipIf(!builtCli || !kubectl)('the snapshot command, run by kubectl against kubesim serve', () => {
  let srv: ServeProcess;
  beforeAll(async () => {
    srv = await startServe(['--cluster', join(root, 'examples', 'snapshot', 'cluster.yaml'), '--paused']);
  }, 240_000);
  afterAll(() => srv?.stop());

  it('captures a snapshot that plans like the original (15 replicas of pod-api)', () => {
    const r = spawnSync('sh', ['-c', snapshotCommand(join(srv.dir, 'snapshot.yaml'))], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, KUBECONFIG: srv.kubeconfig },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const plan = (cluster: string) => {
      const p = spawnSync(
        process.execPath,
        [
          cli,
          'plan',
          '--cluster',
          cluster,
          '--pod',
          join(root, 'examples', 'snapshot', 'pod-api.yaml'),
          '-o',
          'json',
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(p.stderr).toBe('');
      return JSON.parse(p.stdout).shapes[0];
    };
    const captured = plan(join(srv.dir, 'snapshot.yaml'));
    expect(captured.fits).toBe(15);
    expect(captured).toEqual(plan(join(root, 'examples', 'snapshot', 'cluster.yaml')));
  }, 240_000);
});

// The README's three commands (serve a snapshot, point KUBECONFIG at it, kubectl get nodes), run as
// written with examples/snapshot/cluster.yaml as the snapshot.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { type ServeProcess, builtCli, kubectlPath, startServe } from './serve-process.js';

const root = packageRoot();
const kubectl = kubectlPath();

function readmeCommands(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /### Point kubectl at a simulated cluster\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

describe('README: kubectl against kubesim serve', () => {
  it('shows the three commands a user types', () => {
    expect(readmeCommands()).toEqual([
      'kubesim serve --cluster snapshot.yaml --kubeconfig-out kubeconfig',
      'export KUBECONFIG=$PWD/kubeconfig',
      'kubectl get nodes',
    ]);
  });

  describe.skipIf(!builtCli || !kubectl)('run', () => {
    let srv: ServeProcess;
    afterAll(() => srv?.stop());
    it('kubectl get nodes lists the snapshot’s nodes', async () => {
      const [serve] = readmeCommands();
      const args = serve!.split(' ').slice(2, 4); // --cluster snapshot.yaml (startServe adds the kubeconfig)
      args[1] = join(root, 'examples/snapshot/cluster.yaml');
      srv = await startServe(args);
      const r = spawnSync(kubectl!, ['get', 'nodes'], {
        encoding: 'utf8',
        env: { ...process.env, KUBECONFIG: srv.kubeconfig },
      });
      expect(r.stderr).toBe('');
      const names = r.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[0]);
      expect(names).toEqual(['a-1', 'a-2', 'b-1', 'b-2', 'c-1', 'cp-1']);
    }, 240_000);
  });
});

import { describe, it, expect, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadClusterFiles } from '../../src/scheduler/framework/cluster-file.js';
import { loadManifests } from '../../src/api/manifest.js';
import type { Pod } from '../../src/api/types.js';
import { PlannerPool } from '../../src/capacity/pool.js';
import { runPoolTask, type PoolTask } from '../../src/capacity/pool-tasks.js';
import { parseWhatIf } from '../../src/capacity/whatif.js';
import { replicaOf } from '../../src/capacity/planner.js';
import { packageRoot } from '../../src/util/paths.js';

// The pool runs the compiled workers (dist/); `npm test` builds them first.
const built = existsSync(join(packageRoot(), 'dist', 'src', 'capacity', 'pool-worker.js'));
const fx = (f: string) => join(__dirname, '..', '..', 'examples', 'snapshot', f);

describe.skipIf(!built)(`PlannerPool${built ? '' : ' (skipped: run npm run build first)'}`, async () => {
  const cluster = await loadClusterFiles([fx('cluster.yaml')]);
  const api = (await loadManifests([fx('pod-api.yaml')]))[0].object as Pod;
  const pool = new PlannerPool({ threads: 2 });
  afterAll(() => pool.close());

  it('gives the same answers as the single-thread run for a sweep of what-ifs, strategies and seeds', async () => {
    const tasks: PoolTask[] = [
      { kind: 'plan', cluster, shapes: [api], kernel: 'wasm' },
      { kind: 'plan', cluster, shapes: [api], kernel: 'js', whatIfs: [parseWhatIf('lose-zone=eu-west-1b')] },
      {
        kind: 'plan',
        cluster,
        shapes: [api],
        kernel: 'wasm',
        whatIfs: [parseWhatIf('add-nodes=3:a-1')],
        seed: 9,
      },
      {
        kind: 'strategy',
        cluster,
        workload: Array.from({ length: 6 }, (_, i) => replicaOf(api, i)),
        strategy: 'MostAllocated',
      },
      { kind: 'minNodes', cluster, shape: api, replicas: 20, template: 'b-2' },
    ];
    const inPool = await pool.runAll(tasks);
    const local = await Promise.all(tasks.map((t) => runPoolTask(t)));
    expect(inPool).toEqual(local);
    expect((inPool[0] as { shapes: { fits: number }[] }).shapes[0].fits).toBe(15);
  });

  it('reports a failing task as an error naming the task, and keeps serving', async () => {
    await expect(
      pool.run({ kind: 'strategy', cluster, workload: [], strategy: 'NoSuchStrategy' }),
    ).rejects.toThrow(/task strategy failed in a worker: unknown strategy "NoSuchStrategy"/);
    const ok = await pool.run({ kind: 'plan', cluster, shapes: [api], maxReplicas: 3 });
    expect(ok.shapes[0].fits).toBe(3);
  });

  it('validates options eagerly', () => {
    expect(() => new PlannerPool({ threads: 0 })).toThrow(TypeError);
    expect(() => new PlannerPool({ taskTimeoutMs: -1 })).toThrow(/taskTimeoutMs must be > 0/);
  });
});

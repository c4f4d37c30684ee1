// The cluster-autoscaler model with Dynamic Resource Allocation (examples/scenarios/gpu-autoscale.yaml,
// hand-checked in its description): a node group whose template carries GPUs (ResourceSlices cloned
// per template copy, as upstream's SanitizedNodeResourceSlices), scale-up by binpacking the pending
// pods' claims onto template copies, scale-down by device-pool utilization with the claims of moved
// pods released and allocated where they land.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_FRAME, kubesim } from '../cli/harness.js';

const SCENARIO = 'examples/scenarios/gpu-autoscale.yaml';

interface Decision {
  atS: number;
  kind: string;
  subject: string;
  message: string;
}

function simulateJson(file: string) {
  const r = kubesim(['simulate', file, '-o', 'json', '--no-progress']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

/** the scenario with its node group's `devices:` replaced by `replacement` */
function variant(replacement: string): string {
  const s = readFileSync(SCENARIO, 'utf8');
  const from = s.indexOf('      devices:\n');
  const to = s.indexOf('workloads:');
  const file = join(mkdtempSync(join(tmpdir(), 'kubesim-gpu-as-')), 'scenario.yaml');
  writeFileSync(file, s.slice(0, from) + replacement + s.slice(to));
  return file;
}

describe('autoscaler node groups with devices through `kubesim simulate`', () => {
  it('scales the GPU group up for claim-holding pods and back down by device utilization', () => {
    const report = simulateJson(SCENARIO);
    const as = report.autoscaler;
    const decisions = as.decisions as Decision[];
    // 4 × 2 GPUs + 2 × 1 GPU = 10 GPUs on 4-GPU template nodes: 3 nodes in one scale-up at the first scan
    expect(decisions[0]).toMatchObject({ atS: 10, kind: 'scale-up', subject: 'h100' });
    expect(decisions[0]!.message).toMatch(/^scale-up \[\{h100 0->3 \(max: 4\)\}\] for 6 pod\(s\)/);
    expect(as).toMatchObject({ scaleUps: 1, nodesAdded: 3, nodesRemoved: 2 });
    expect(as.groups).toEqual([
      expect.objectContaining({ name: 'h100', nodesAtStart: 0, peakNodes: 3, nodesAtEnd: 1 }),
    ]);
    // every pod ran: 4 Job pods and 2 inference pods, one of them replaced after its node's scale-down
    expect(report.pods).toMatchObject({ created: 7, scheduled: 7, pendingAtEnd: 0, runningAtEnd: 2 });
    expect(report.deployments).toEqual([expect.objectContaining({ name: 'default/infer', ready: 2 })]);
    // scale-down reads the busiest device pool, not cpu/memory; a node holding one inference GPU is
    // unneeded because that pod's claim can be allocated on another node
    const down = decisions.filter((d) => d.atS > 10);
    expect(down.map((d) => [d.kind, d.subject])).toEqual([
      ['unneeded', 'h100-0000'],
      ['not-removed', 'h100-0001'],
      ['unneeded', 'h100-0002'],
      ['scale-down', 'h100-0002'],
      ['scale-down', 'h100-0000'],
    ]);
    expect(down[0]!.message).toMatch(
      /^node h100-0000 unneeded: utilization 25% \(gpu\.example\.com\/h100-0000\) < 50%; pods can move: default\/infer-[a-z0-9]+-[a-z0-9]+ → h100-0001$/,
    );
    // the moved pod's claim counts on its new node: 2 of 4 GPUs
    expect(down[1]!.message).toBe(
      'node h100-0001 not removed: utilization 50% (gpu.example.com/h100-0001) is not below the threshold 50%',
    );
    expect(down[2]!.message).toMatch(/utilization 0% \(gpu\.example\.com\/h100-0002\) < 50%; empty$/);
  });

  it('a template without devices helps no claim-holding pod', () => {
    const report = simulateJson(variant(''));
    expect(report.autoscaler.scaleUps).toBe(0);
    const d = (report.autoscaler.decisions as Decision[]).filter((x) => x.kind === 'no-scale-up');
    expect(d).toHaveLength(6);
    for (const x of d) expect(x.message).toMatch(/: no group fits: h100: cannot allocate all claims$/);
    expect(report.pods).toMatchObject({ created: 6, scheduled: 0, pendingAtEnd: 6 });
  });

  it('names the field of a bad device list', () => {
    const r = kubesim([
      'simulate',
      variant('      devices: [{ driver: gpu.example.com, count: 0 }]\n'),
      '--no-progress',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /autoscaler\.nodeGroups\[0\]\.devices\[0\]\.count: expected an integer from 1 to 128/,
    );
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });
});

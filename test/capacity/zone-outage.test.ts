// A zone outage (nodes stay, unreachable) against node removal, and the plan/simulate agreement:
// the same cluster and the same DoNotSchedule zone-spread Deployment give the same count through
// `kubesim plan --what-if zone-outage=…` and through `simulate` with the same outage.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject, Pod } from '../../src/api/types.js';
import { parseWhatIf, WhatIfError } from '../../src/capacity/whatif.js';
import { parseScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { kubesimInProcess } from '../cli/harness.js';

/** 3 zones × 2 nodes, `web` spread over zones with maxSkew 1, DoNotSchedule, 2 replicas a zone. */
function scenario(timeline: string): string {
  return `
name: zone-outage-spread
seed: 1
duration: 12m
cluster:
  pools:
    - { name: w, count: 6, cpu: "4", memory: 16Gi, zones: [zone-a, zone-b, zone-c] }
workloads:
  - manifest:
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web, namespace: default }
      spec:
        replicas: 6
        selector: { matchLabels: { app: web } }
        template:
          metadata: { labels: { app: web } }
          spec:
            topologySpreadConstraints:
              - maxSkew: 1
                topologyKey: topology.kubernetes.io/zone
                whenUnsatisfiable: DoNotSchedule
                labelSelector: { matchLabels: { app: web } }
            containers:
              - name: web
                image: nginx:1.27
                resources: { requests: { cpu: 250m, memory: 256Mi } }
timeline:
${timeline}
settings: { scheduler: real }
`;
}

/**
 * Runs the scenario: writes the cluster as a kubectl-style snapshot at 25 s (before the outage at
 * 30 s), then returns the live (scheduled, not Terminating) web pods per zone at `measureS`.
 */
async function run(
  timeline: string,
  measureS: number,
): Promise<{ snapshot: string; live: Record<string, number> }> {
  const sc = parseScenario(scenario(timeline), 'zone-outage.yaml', tmpdir());
  const sim = new Simulation(sc);
  await sim.setup();
  const t0 = sim.loop.startMs;
  await sim.loop.runUntil(t0 + 25_000);
  const items: KubeObject[] = [];
  for (const r of ['nodes', 'pods', 'deployments', 'replicasets'])
    items.push(...(await sim.server.list<KubeObject>(r)).items);
  const snapshot = join(mkdtempSync(join(tmpdir(), 'kubesim-outage-')), 'snapshot.yaml');
  writeFileSync(snapshot, stringify({ apiVersion: 'v1', kind: 'List', items }));
  await sim.loop.runUntil(t0 + measureS * 1000);
  const nodes = (await sim.server.list<KubeObject>('nodes')).items;
  const zoneOf = new Map(
    nodes.map((n) => [n.metadata.name, n.metadata.labels?.['topology.kubernetes.io/zone']]),
  );
  const live: Record<string, number> = {};
  for (const p of (await sim.server.list<Pod>('pods')).items)
    if (p.metadata.labels?.app === 'web' && p.spec.nodeName && !p.metadata.deletionTimestamp) {
      const z = zoneOf.get(p.spec.nodeName) ?? '';
      live[z] = (live[z] ?? 0) + 1;
    }
  await sim.shutdown();
  return { snapshot, live };
}

interface PlanJson {
  displaced: { total: number; placed: number; unschedulable: { pod: string; reason: string }[] };
  shapes: { fits: number; stopReason?: string; perZone: Record<string, number> }[];
  applied: string[];
}

async function plan(snapshot: string, whatIf: string): Promise<PlanJson> {
  const r = await kubesimInProcess([
    'plan',
    '--cluster',
    snapshot,
    '--pod',
    snapshot,
    '--what-if',
    whatIf,
    '--no-progress',
    '-o',
    'json',
  ]);
  expect(r.stderr).not.toMatch(/at .*\.ts:/);
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as PlanJson;
}

describe('zone-outage what-if', () => {
  it('parses ZONE and ZONE@DURATION, and names a bad duration', () => {
    expect(parseWhatIf('zone-outage=zone-c')).toEqual({ kind: 'zone-outage', zone: 'zone-c' });
    expect(parseWhatIf('zone-outage=zone-c@2m')).toEqual({
      kind: 'zone-outage',
      zone: 'zone-c',
      afterMs: 120_000,
    });
    expect(() => parseWhatIf('zone-outage=zone-c@soon')).toThrow(WhatIfError);
    expect(() => parseWhatIf('zone-outage=zone-c@soon')).toThrow('zone-outage=zone-c@soon');
  });
});

describe('zone outage: plan and simulate agree on a DoNotSchedule zone spread', () => {
  it('before the pods are evicted: their zone still counts, so a and b take one more each (2)', async () => {
    // outage at 30 s; the nodes are tainted unreachable ~40 s later; scale up at 120 s; pods would be
    // evicted ≥ 300 s after the taint, so at 300 s every pod of zone-c still runs and counts
    const sim = await run(
      `  - { at: 30s, action: zoneOutage, zone: zone-c }
  - { at: 120s, action: scale, deployment: web, replicas: 40 }`,
      300,
    );
    const p = await plan(sim.snapshot, 'zone-outage=zone-c@2m');
    expect(p.displaced.total).toBe(0);
    expect(p.shapes[0]!.fits).toBe(2);
    expect(p.shapes[0]!.perZone).toEqual({ 'zone-a': 1, 'zone-b': 1 });
    expect(p.shapes[0]!.stopReason).toMatch(/didn't match pod topology spread constraints/);
    // simulate: the 6 pods plus the 2 the plan counts, nothing new in zone-c
    expect(sim.live).toEqual({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 2 });
    expect(6 + p.shapes[0]!.fits).toBe(sim.live['zone-a']! + sim.live['zone-b']! + sim.live['zone-c']!);
  });

  it('after the eviction: zone-c counts 0, so the replacements and every new replica stay Pending', async () => {
    const sim = await run(
      `  - { at: 30s, action: zoneOutage, zone: zone-c }
  - { at: 420s, action: scale, deployment: web, replicas: 40 }`,
      600,
    );
    const p = await plan(sim.snapshot, 'zone-outage=zone-c');
    expect(p.displaced.total).toBe(2);
    expect(p.displaced.placed).toBe(0);
    expect(p.shapes[0]!.fits).toBe(0);
    // simulate: only the 4 pods of zones a and b run; the replacements and the scale-up are Pending
    expect(sim.live).toEqual({ 'zone-a': 2, 'zone-b': 2 });
    expect(6 - 2 + p.displaced.placed + p.shapes[0]!.fits).toBe(sim.live['zone-a']! + sim.live['zone-b']!);
  });

  it('node removal (lose-zone) is the optimistic answer: the zone is no domain any more', async () => {
    const { snapshot } = await run('  - { at: 30s, action: zoneOutage, zone: zone-c }', 26);
    const p = await plan(snapshot, 'lose-zone=zone-c');
    expect(p.displaced).toMatchObject({ total: 2, placed: 2 });
    // 4 nodes × 4 cpu / 250m = 64 pods, 4 already there, 2 replacements: resources stop it
    expect(p.shapes[0]!.fits).toBe(58);
    expect(p.shapes[0]!.stopReason).toMatch(/Insufficient cpu/);
  });

  it('a sweep shows removal and outage side by side', async () => {
    const { snapshot } = await run('  - { at: 30s, action: zoneOutage, zone: zone-c }', 26);
    const r = await kubesimInProcess([
      'plan',
      '--cluster',
      snapshot,
      '--pod',
      snapshot,
      '--sweep',
      '--threads',
      '1',
      '--what-if',
      'lose-zone=zone-c',
      'zone-outage=zone-c',
      'zone-outage=zone-c@2m',
      '--no-progress',
      '-o',
      'json',
    ]);
    expect(r.status).toBe(0);
    const cases = JSON.parse(r.stdout) as { case: string; report: PlanJson }[];
    // base: 6 nodes × 16 replicas of 250m, 6 running → 90, spread evenly
    expect(cases.map((c) => [c.case, c.report.shapes[0]!.fits])).toEqual([
      ['base', 90],
      ['lose-zone=zone-c', 58],
      ['zone-outage=zone-c', 0],
      ['zone-outage=zone-c@2m', 2],
    ]);
  });
});

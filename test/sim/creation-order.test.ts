// A snapshot or a timeline apply is created as an install would: PriorityClasses and Namespaces
// before the Pods that name them, whatever order the file lists them in (Helm's InstallOrder head).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Pod, PriorityClass } from '../../src/api/types.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-order-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// the Pod first, its PriorityClass and Namespace after it (as a hand-concatenated file may be)
const snapshot = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop}
  spec: {priorityClassName: high, containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]}
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
`;

const scenario = `name: creation-order
duration: 2m
cluster:
  snapshot: snapshot.yaml
timeline:
  - at: 1m
    action: apply
    manifest:
      apiVersion: v1
      kind: List
      items:
      - apiVersion: v1
        kind: Pod
        metadata: {name: batch, namespace: jobs}
        spec: {priorityClassName: low, containers: [{name: c, image: busybox}]}
      - apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: low}
        value: -5
      - apiVersion: v1
        kind: Namespace
        metadata: {name: jobs}
`;

describe('simulation setup creates objects in install order', () => {
  it('a Pod listed before its PriorityClass and Namespace is admitted with its priority', async () => {
    writeFileSync(join(dir, 'snapshot.yaml'), snapshot);
    writeFileSync(join(dir, 'scenario.yaml'), scenario);
    const sim = new Simulation(loadScenario(join(dir, 'scenario.yaml')));
    const r = await sim.run();
    expect(r.timeline.map((t) => t.error)).toEqual([undefined]);
    const pods = (await sim.server.list<Pod>('pods')).items;
    const byName = Object.fromEntries(pods.map((p) => [p.metadata.name, p]));
    expect(byName.web.spec.priority).toBe(1000);
    expect(byName.batch.spec.priority).toBe(-5);
    const classes = (await sim.server.list<PriorityClass>('priorityclasses')).items;
    expect(classes.map((c) => c.metadata.name)).toEqual(expect.arrayContaining(['high', 'low']));
  });
});

// The /ui page of `kubesim serve` in headless Chromium, live: nodes by zone with their allocation,
// the pending pod with the scheduler's FitError, the explain table for a chosen pod (the same
// answer as /kubesim/v1/explain), and a pod created after the page loaded arriving through the
// watch stream. Screenshots are kept in $KUBESIM_SCREENSHOTS (default: a kubesim-screenshots
// folder in the temp dir) for a person to look at.
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { type Browser, openPage } from '../helpers/cdp.js';
import { chromiumPath } from '../helpers/chromium.js';
import { type ServeProcess, builtCli, startServe } from './serve-process.js';

const requireIt = process.env.KUBESIM_REQUIRE_CHROMIUM === '1';
const ready = !!chromiumPath() && builtCli;
if (!ready && requireIt)
  throw new Error('KUBESIM_REQUIRE_CHROMIUM=1 but chromium or the built CLI is missing');
if (!ready) console.warn('skipping the /ui tests: chromium (apt-get install chromium) or dist/ is missing');
const shots = process.env.KUBESIM_SCREENSHOTS ?? join(tmpdir(), 'kubesim-screenshots');

const pod = (name: string, cpu: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu, memory: '1Gi' } } }] },
});

describe.skipIf(!ready)('kubesim serve /ui in Chromium', () => {
  let srv: ServeProcess;
  let page: Browser | undefined;
  const api = async (path: string, body?: unknown) => {
    const r = await fetch(srv.url + path, {
      method: body ? 'POST' : 'GET',
      headers: { 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return r.json();
  };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    srv = await startServe([
      '--speed',
      '10',
      '--cluster',
      join(packageRoot(), 'examples/snapshot/cluster.yaml'),
    ]);
    await api('/api/v1/namespaces/default/pods', pod('huge', '64'));
    // the scheduler has tried it: its FitError is on the pod
    for (let i = 0; i < 100; i++) {
      const p = await api('/api/v1/namespaces/default/pods/huge');
      if (p.status?.conditions?.some((c: { type: string }) => c.type === 'PodScheduled')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await srv?.stop();
  });

  it('shows nodes by zone with their allocation and the pending pod with its FitError', async () => {
    page = await openPage(`${srv.url}/ui#pod=default/huge`);
    await page.waitFor(
      `document.querySelectorAll('.node').length === 6 && document.querySelector('#pending-table') && document.querySelector('#explain-table')`,
      'the nodes, the pending pods and the explain table',
    );
    const zones = await page.evaluate<Record<string, string[]>>(
      `Object.fromEntries([...document.querySelectorAll('.zone')].map((z) => [z.dataset.zone, [...z.querySelectorAll('.node')].map((n) => n.dataset.node)]))`,
    );
    expect(zones).toEqual({
      'eu-west-1a': ['a-1', 'a-2', 'cp-1'],
      'eu-west-1b': ['b-1', 'b-2'],
      'eu-west-1c': ['c-1'],
    });
    // a-1 runs the two web pods of examples/snapshot/cluster.yaml: 2 × 1 CPU of 4, 2 × 2Gi of 16Gi
    const a1 = await page.evaluate<string>(`document.querySelector('[data-node="a-1"]').innerText`);
    expect(a1.replace(/\s+/g, ' ')).toBe('a-1 cpu 2 / 4 memory 4Gi / 16Gi pods 2 / 110');
    const huge = await api('/api/v1/namespaces/default/pods/huge');
    const fitError = huge.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled').message;
    expect(fitError).toMatch(/^0\/6 nodes are available: .*5 Insufficient cpu/);
    const row = await page.evaluate<string[]>(
      `[...document.querySelector('#pending-table tr[data-pod="default/huge"]').cells].map((c) => c.innerText)`,
    );
    expect(row).toEqual(['default/huge', '64', '1Gi', fitError]);
  }, 60_000);

  it('explains the chosen pod as /kubesim/v1/explain does: verdicts and per-plugin scores', async () => {
    const verdicts = await page!.evaluate<[string, string][]>(
      `[...document.querySelectorAll('#explain-table tr[data-node]')].map((r) => [r.dataset.node, r.cells[1].innerText])`,
    );
    const ex = await api('/kubesim/v1/explain?namespace=default&name=huge');
    expect(verdicts).toEqual(
      ex.nodes.map((n: { name: string; decisive: { plugin: string; reasons: string[] } }) => [
        n.name,
        `✗ ${n.decisive.plugin}: ${n.decisive.reasons.join(', ')}`,
      ]),
    );
    expect(verdicts.filter(([, v]) => v === '✗ NodeResourcesFit: Insufficient cpu')).toHaveLength(5);
    await page!.screenshot(join(shots, 'ui-pending.png'));

    // a pod that fits: one column per score plugin, the chosen node first
    await page!.evaluate(`(location.hash = '#pod=shop/db-0', select('shop/db-0'))`);
    await page!.waitFor(
      `document.querySelector('#explain-head')?.innerText.startsWith('Pod shop/db-0')`,
      'the explanation of shop/db-0',
    );
    const table = await page!.evaluate<string[][]>(
      `[...document.querySelectorAll('#explain-table tr')].map((r) => [...r.cells].map((c) => c.innerText))`,
    );
    const db = await api('/kubesim/v1/explain?namespace=shop&name=db-0');
    expect(table[0]).toEqual([
      'NODE',
      ...db.scorePlugins.map((s: { name: string; weight: number }) => `${s.name} (×${s.weight})`),
      'TOTAL',
      'VERDICT',
      'OTHER FAILING FILTERS',
    ]);
    expect(table[1]![0]).toBe(db.chosen);
    expect(table[1]!.at(-3)).toBe(String(db.nodes[0].total));
    expect(table[1]!.at(-2)).toBe('chosen');
    await page!.screenshot(join(shots, 'ui-explain.png'));
    expect(statSync(join(shots, 'ui-explain.png')).size).toBeGreaterThan(10_000);
  }, 60_000);

  it('follows the watch stream: a pod created after the page loaded shows up pending', async () => {
    await api('/api/v1/namespaces/default/pods', pod('late', '32'));
    await page!.waitFor(`document.querySelector('#pending-table tr[data-pod="default/late"]')`, 'pod late');
    const status = await page!.evaluate<string>(`document.querySelector('#status').innerText`);
    expect(Number(/(\d+) watch events/.exec(status)?.[1])).toBeGreaterThan(0);
    await page!.screenshot(join(shots, 'ui-watch.png'));
  }, 60_000);
});

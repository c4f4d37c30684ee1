// The /ui page of `kubesim serve` in headless Chromium, live, on examples/snapshot/cluster.yaml
// (6 nodes in 3 zones): the heatmap per zone with a hover naming the node and its allocation, the
// zone aggregates, the pending pod's group opening its explain (the same answer as
// /kubesim/v1/explain), the pods table with the server's Table cells and selectors that select what
// the server's ?labelSelector= / ?fieldSelector= select, a pod created after the page loaded
// arriving through the watch, the clock stepped from the page, and the page against a server
// without kubesim's own endpoints. Screenshots are kept in $KUBESIM_SCREENSHOTS (default: a
// kubesim-screenshots folder in the temp dir) for a person to look at.
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
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu, memory: '1Gi' } } }] },
});
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

describe.skipIf(!ready)('kubesim serve /ui in Chromium', () => {
  let srv: ServeProcess;
  let page: Browser | undefined;
  const api = async (path: string, body?: unknown, accept = 'application/json') => {
    const r = await fetch(srv.url + path, {
      method: body ? 'POST' : 'GET',
      headers: { 'Content-Type': 'application/json', Accept: accept },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { code: r.status, ...(await r.json()) };
  };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    srv = await startServe(['--cluster', join(packageRoot(), 'examples/snapshot/cluster.yaml')]);
    await api('/api/v1/namespaces/default/pods', pod('huge', '64'));
    // the scheduler has tried it: its FitError is on the pod (a deadline: a busy machine is slow)
    for (const end = Date.now() + 60_000; Date.now() < end; ) {
      const p = await api('/api/v1/namespaces/default/pods/huge');
      if (p.status?.conditions?.some((c: { type: string }) => c.type === 'PodScheduled')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // a still clock: the cells the page lists are the cells the server prints afterwards
    await fetch(`${srv.url}/kubesim/v1/clock?paused=true`, { method: 'POST' });
  }, 240_000);
  afterAll(async () => {
    await page?.close();
    await srv?.stop();
  });

  it('draws a heatmap per zone; hovering a cell names the node and its allocation', async () => {
    page = await openPage(`${srv.url}/ui`, 1400, 1000);
    await page.waitFor(`kubesimUi.timings.interactive`, 'the page loaded');
    const zones = await page.evaluate<Record<string, string[]>>(
      `Object.fromEntries([...H.cells].map(([z, c]) => [z, c.layout.map((l) => l[2]).sort()]))`,
    );
    expect(zones).toEqual({
      'eu-west-1a': ['a-1', 'a-2', 'cp-1'],
      'eu-west-1b': ['b-1', 'b-2'],
      'eu-west-1c': ['c-1'],
    });
    // a-1 runs the two web pods of examples/snapshot/cluster.yaml: 2 × 1 CPU of 4, 2 × 2Gi of 16Gi
    const at = await page.evaluate<{ x: number; y: number }>(`(() => {
      const c = document.querySelector('canvas[data-zone="eu-west-1a"]'), r = c.getBoundingClientRect();
      const [x, y] = H.cells.get('eu-west-1a').layout.find((l) => l[2] === 'a-1');
      return { x: r.left + x + 3, y: r.top + y + 3 }; })()`);
    await page.mouse('mouseMoved', at.x, at.y);
    const tip = await page.waitFor<string>(
      `$('tip').style.display === 'block' && $('tip').innerText`,
      'the tooltip',
    );
    expect(tip.split('\n')).toEqual([
      'a-1 · m5.xlarge',
      'CPU 2 / 4 (50%)',
      'memory 4Gi / 16Gi (25%)',
      'pods 2 / 110',
    ]);
    // a click opens its detail: its pods, taints and conditions
    await page.mouse('mousePressed', at.x, at.y);
    await page.mouse('mouseReleased', at.x, at.y);
    await page.waitFor(`document.querySelector('.detail[data-node="a-1"]')`, 'the detail of a-1');
    const pods = await page.evaluate<string[]>(`nodePodsTable.rows.map((r) => r.key)`);
    const onA1 = await api('/api/v1/pods?fieldSelector=spec.nodeName=a-1');
    expect(pods.sort()).toEqual(
      onA1.items
        .map(
          (p: { metadata: { namespace: string; name: string } }) =>
            `${p.metadata.namespace}/${p.metadata.name}`,
        )
        .sort(),
    );
  }, 240_000);

  it("counts requests as the server's node summary does (the page from the watch, the server from src/api)", async () => {
    const summary = await api('/kubesim/v1/node-summary');
    const page6 = await page!.evaluate<Record<string, number[]>>(
      `Object.fromEntries([...S.nodes.values()].map((n) => { const u = usageOf(n.name); return [n.name, [n.cpu, n.mem, n.pods, u.cpu, u.mem, u.pods]]; }))`,
    );
    for (const [name, , , ...nums] of summary.nodes as [string, string, string, ...number[]][])
      nums.slice(0, 6).forEach((v, i) => expect(page6[name]![i], `${name} column ${i}`).toBeCloseTo(v, 6));
    expect(Object.keys(page6).sort()).toEqual(summary.nodes.map((n: string[]) => n[0]).sort());
    // each zone's aggregate rows: requested, allocatable, free, used
    const agg = await page!.evaluate<string[][]>(
      `[...document.querySelectorAll('.zone[data-zone="eu-west-1a"] .agg tr')].map((r) => [...r.cells].map((c) => c.innerText))`,
    );
    expect(agg[1]).toEqual(['CPU', '4.5', '12', '7.5', '38%']);
  }, 240_000);

  it('groups the pending pod by its FitError reasons; the group opens its explain', async () => {
    const huge = await api('/api/v1/namespaces/default/pods/huge');
    const fitError: string = huge.status.conditions.find(
      (c: { type: string }) => c.type === 'PodScheduled',
    ).message;
    expect(fitError).toMatch(/^0\/6 nodes are available: .*5 Insufficient cpu/);
    const reasons = /nodes are available: (.*?)\. preemption/.exec(fitError)![1];
    const group = await page!.evaluate<string[]>(
      `[...document.querySelectorAll('#pending-groups li')].map((li) => li.dataset.count + ' ' + li.dataset.reasons)`,
    );
    expect(group).toEqual([`1 ${reasons}`]);
    await page!.click('#pending-groups li');
    await page!.waitFor(`explainTable && explainTable.rows.length === 6`, 'the explain of default/huge');
    const verdicts = await page!.evaluate<[string, string][]>(
      `[...document.querySelectorAll('#explain-table .row')].map((r) => [r.dataset.key, r.children[1].innerText])`,
    );
    const ex = await api('/kubesim/v1/explain?namespace=default&name=huge');
    expect(verdicts).toEqual(
      ex.nodes.map((n: { name: string; decisive: { plugin: string; reasons: string[] } }) => [
        n.name,
        `✗ ${n.decisive.plugin}: ${n.decisive.reasons.join(', ')}`,
      ]),
    );
    const counts = await page!.evaluate<string[]>(
      `[...document.querySelectorAll('#explain-verdicts tr')].map((r) => r.innerText)`,
    );
    expect(counts.map((c) => c.replace(/\s+/g, ' '))).toContain('5 ✗ NodeResourcesFit: Insufficient cpu');
    await page!.screenshot(join(shots, 'ui-pending.png'));

    // a pod that fits: one column per score plugin, the chosen node first
    await page!.evaluate(`select('shop/db-0')`);
    await page!.waitFor(
      `document.querySelector('#explain-head')?.innerText.startsWith('Pod shop/db-0')`,
      'shop/db-0',
    );
    const head = await page!.evaluate<string[]>(
      `[...document.querySelectorAll('#explain-table .head div')].map((c) => c.innerText)`,
    );
    const first = await page!.evaluate<string[]>(
      `[...document.querySelector('#explain-table .row').children].map((c) => c.innerText)`,
    );
    const db = await api('/kubesim/v1/explain?namespace=shop&name=db-0');
    expect(head).toEqual([
      'NODE',
      ...db.scorePlugins.map((s: { name: string; weight: number }) => `${s.name} (×${s.weight})`),
      'TOTAL',
      'VERDICT',
      'OTHER FAILING FILTERS',
    ]);
    expect(first[0]).toBe(db.chosen);
    expect(first.at(-3)).toBe(String(db.nodes[0].total));
    expect(first.at(-2)).toBe('chosen');
    await page!.screenshot(join(shots, 'ui-explain.png'));
    expect(statSync(join(shots, 'ui-explain.png')).size).toBeGreaterThan(10_000);
  }, 240_000);

  it("shows the pods table with the server's Table cells; selectors select what the server selects", async () => {
    const t = await api('/api/v1/pods?includeObject=Metadata', undefined, TABLE);
    const head = await page!.evaluate<string[]>(
      `[...document.querySelectorAll('#pods-view .head div')].map((c) => c.innerText)`,
    );
    expect(head).toEqual([
      'NAMESPACE',
      ...t.columnDefinitions.map((c: { name: string }) => c.name.toUpperCase()),
      'CPU',
      'MEMORY',
    ]);
    // the clock is paused: every cell is what the server prints now
    const cells = await page!.evaluate<Record<string, string[]>>(
      `Object.fromEntries([...S.pods.values()].map((p) => [p.key, p.cells]))`,
    );
    for (const row of t.rows as {
      cells: string[];
      object: { metadata: { namespace: string; name: string } };
    }[])
      expect(cells[`${row.object.metadata.namespace}/${row.object.metadata.name}`]).toEqual(row.cells);

    const selectors: [string, string][] = [
      ['app=web', ''],
      ['app in (web, huge)', ''],
      ['app notin (web)', ''],
      ['!app', ''],
      ['app', 'status.phase=Running'],
      ['', 'spec.nodeName=a-1'],
      ['', 'metadata.namespace!=shop,status.phase!=Pending'],
      ['tier!=db', 'spec.schedulerName=default-scheduler'],
    ];
    for (const [l, f] of selectors) {
      const q = new URLSearchParams({ labelSelector: l, fieldSelector: f });
      const want = (await api(`/api/v1/pods?${q}`)).items
        .map(
          (p: { metadata: { namespace: string; name: string } }) =>
            `${p.metadata.namespace}/${p.metadata.name}`,
        )
        .sort();
      await page!.evaluate(
        `(() => { $('pods-labels').value = ${JSON.stringify(l)}; $('pods-fields').value = ${JSON.stringify(f)}; $('pods-labels').focus(); })()`,
      );
      await page!.press('Enter');
      // the page re-renders its table on its own schedule (a watch event may land in between):
      // wait until it shows the server's answer, then compare, so a wrong answer still fails
      const rows = `JSON.stringify(views.pods.table.rows.map((r) => r.key).sort())`;
      await page!
        .waitFor(`${rows} === ${JSON.stringify(JSON.stringify(want))}`, 'the filtered rows', 120_000)
        .catch(() => {});
      const shown = await page!.evaluate<string[]>(`views.pods.table.rows.map((r) => r.key).sort()`);
      expect(shown, `-l '${l}' --field-selector '${f}'`).toEqual(want);
    }
    // what the server refuses, the page refuses too
    for (const [l, f] of [
      ['app in ()', ''],
      ['', 'spec.image=x'],
      ['a b', ''],
    ]) {
      await page!.evaluate(
        `(() => { $('pods-labels').value = ${JSON.stringify(l)}; $('pods-fields').value = ${JSON.stringify(f)}; $('pods-labels').focus(); })()`,
      );
      await page!.press('Enter');
      expect(
        await page!.evaluate<string>(`$('pods-error').innerText`),
        `-l '${l}' --field-selector '${f}'`,
      ).not.toBe('');
      const r = await api(`/api/v1/pods?${new URLSearchParams({ labelSelector: l, fieldSelector: f })}`);
      expect(r.code).toBe(400);
    }
    await page!.evaluate(
      `(() => { $('pods-labels').value = ''; $('pods-fields').value = ''; $('pods-labels').focus(); })()`,
    );
    await page!.press('Enter');
  }, 240_000);

  it('steps the virtual clock from the page: the time shown moves by the step', async () => {
    const before = await page!.waitFor<number>(
      `S.clock && S.clock.paused && Number($('vtime').dataset.ms)`,
      'the paused clock',
    );
    await page!.click('[data-step="1m"]');
    await page!.waitFor(`Number($('vtime').dataset.ms) === ${before + 60_000}`, 'the clock one minute on');
    const clock = await api('/kubesim/v1/clock');
    expect(Date.parse(clock.now)).toBe(before + 60_000);
    await page!.click('#clock-pause');
    await page!.waitFor(`S.clock && !S.clock.paused`, 'the clock running');
    expect((await api('/kubesim/v1/clock')).paused).toBe(false);
  }, 240_000);

  it('follows the watch stream: a pod created after the page loaded joins a pending group', async () => {
    await api('/api/v1/namespaces/default/pods', pod('late', '32'));
    await page!.waitFor(`S.pods.get('default/late')?.fitError`, 'pod late with its FitError');
    await page!.waitFor(`P.groups.reduce((n, g) => n + g.pods.length, 0) === 2`, 'two pending pods');
    const status = await page!.evaluate<string>(`$('status').innerText`);
    expect(Number(/([\d,]+) watch events/.exec(status)?.[1]?.replace(/,/g, ''))).toBeGreaterThan(0);
    // the charts sample what the watch brought: 2 pending, 6 running, 6 nodes Ready
    await page!.waitFor(`C.samples.length >= 2 && C.samples.at(-1).phase.Pending === 2`, 'two samples');
    const chart = await page!.evaluate<{ lines: number; svg: boolean; last: number[] }>(
      `({ lines: document.querySelectorAll('#chart-phase polyline').length,
          svg: document.querySelector('#chart-phase svg') instanceof SVGSVGElement,
          last: [C.samples.at(-1).phase.Pending, C.samples.at(-1).phase.Running, C.samples.at(-1).nodes.Ready] })`,
    );
    expect(chart).toEqual({ lines: 4, svg: true, last: [2, 6, 6] });
    await page!.screenshot(join(shots, 'ui-watch.png'));
  }, 240_000);

  it('works against a server without kubesim endpoints: those parts say so, the rest is drawn', async () => {
    const plain = await openPage(`${srv.url}/ui#pod=default/huge`, 1400, 1000, (url) =>
      url.includes('/kubesim/'),
    );
    try {
      await plain.waitFor(`kubesimUi.timings.interactive`, 'the page loaded without kubesim endpoints');
      await plain.waitFor(
        `S.has.explain === false && S.has.clock === false && S.has.stats === false`,
        'the endpoints missing',
      );
      const zones = await plain.evaluate<number>(
        `[...H.cells.values()].reduce((n, c) => n + c.layout.length, 0)`,
      );
      expect(zones).toBe(6);
      expect(await plain.evaluate<string>(`$('clock-controls').style.display`)).toBe('none');
      expect(await plain.evaluate<string>(`$('explain').innerText`)).toMatch(/does not have it/);
      expect(await plain.evaluate<number>(`P.groups.length`)).toBe(1);
      expect(await plain.evaluate<string[]>(`S.errors`)).toEqual([]);
    } finally {
      await plain.close();
    }
    expect(await page!.evaluate<string[]>(`S.errors`)).toEqual([]);
  }, 240_000);
});

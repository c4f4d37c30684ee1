/**
 * `GET /ui`: one self-contained page (inline CSS and script, nothing fetched from elsewhere) that
 * watches the served cluster through the same Kubernetes API kubectl uses:
 *
 *  - nodes by zone (`topology.kubernetes.io/zone`), each with the CPU, memory and pod slots its pods
 *    request against its allocatable, as the scheduler's NodeResourcesFit counts them;
 *  - pending pods with the scheduler's FitError (the PodScheduled=False condition's message);
 *  - for a pod the user picks (or `#pod=NS/NAME` in the address), the explain table from
 *    /kubesim/v1/explain: each node's verdict, failing filters, and per-plugin scores.
 *
 * The page lists nodes and pods, then follows `?watch=true` streams from the list's
 * resourceVersion (with bookmarks), relisting after a 410 or a closed stream, and redraws at most
 * every 200 ms. Pod requests are summed as upstream's resource helpers do
 * (max(sum of containers, largest init container) + overhead; restartable init containers are
 * counted with the containers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #1b1f24; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 8px; }
#status { color: #57606a; font-size: 12px; }
.zones { display: flex; flex-wrap: wrap; gap: 12px; }
.zone { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; min-width: 260px; }
.zone h3 { font-size: 14px; margin: 0 0 6px; }
.node { padding: 6px 0; border-top: 1px solid #eaeef2; }
.node .name { font-weight: 600; } .node .bad { color: #cf222e; font-weight: 400; }
.bar { display: grid; grid-template-columns: 56px 1fr 118px; align-items: center; gap: 6px; font-size: 12px; }
.bar .track { background: #eaeef2; height: 8px; border-radius: 4px; overflow: hidden; }
.bar .fill { background: #2da44e; height: 100%; } .bar .fill.high { background: #bf8700; } .bar .fill.full { background: #cf222e; }
table { border-collapse: collapse; font-size: 12px; max-width: 100%; } td { overflow-wrap: anywhere; } th, td { border: 1px solid #d0d7de; padding: 3px 6px; text-align: left; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.pod { cursor: pointer; } tr.pod:hover, tr.pod.selected { background: #ddf4ff; }
tr.chosen td { background: #dafbe1; } td.fail { color: #cf222e; }
td.podname { white-space: nowrap; overflow-wrap: normal; }
th.plugin { max-width: 96px; overflow-wrap: anywhere; font-weight: 600; } td.verdict { min-width: 220px; }
.fiterror { color: #cf222e; } .muted { color: #57606a; }
`;

// Runs in the browser: plain ES2020, no modules, no dependencies.
const SCRIPT = String.raw`
const state = { nodes: new Map(), pods: new Map(), selected: null, explain: null, watchEvents: 0 };
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
};
const key = (o) => (o.metadata.namespace ? o.metadata.namespace + '/' : '') + o.metadata.name;

// quantities: "100m", "2", "64Mi", "1G", "1e3"
const SUFFIX = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
function qty(v) {
  if (v === undefined || v === null) return 0;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(String(v).trim());
  return m ? Number(m[1]) * (SUFFIX[m[2]] ?? 1) : 0;
}
function podRequests(p) {
  const sum = { cpu: 0, memory: 0 };
  const add = (to, r) => { to.cpu += qty(r?.cpu); to.memory += qty(r?.memory); };
  for (const c of p.spec.containers || []) add(sum, c.resources?.requests);
  for (const c of p.spec.initContainers || []) if (c.restartPolicy === 'Always') add(sum, c.resources?.requests);
  for (const c of p.spec.initContainers || []) {
    if (c.restartPolicy === 'Always') continue;
    sum.cpu = Math.max(sum.cpu, qty(c.resources?.requests?.cpu));
    sum.memory = Math.max(sum.memory, qty(c.resources?.requests?.memory));
  }
  add(sum, p.spec.overhead);
  return sum;
}
const terminal = (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const cpuText = (c) => (c < 1 ? Math.round(c * 1000) + 'm' : (Math.round(c * 100) / 100) + '');
const memText = (b) => b >= 2 ** 30 ? (Math.round(b / 2 ** 30 * 10) / 10) + 'Gi' : Math.round(b / 2 ** 20) + 'Mi';

function bar(label, used, total, text) {
  const f = total > 0 ? Math.min(1, used / total) : 0;
  const cls = 'fill' + (f >= 1 ? ' full' : f >= 0.8 ? ' high' : '');
  return el('div', { class: 'bar' }, label,
    el('div', { class: 'track' }, el('div', { class: cls, style: 'width:' + (f * 100).toFixed(1) + '%' })),
    el('span', {}, text(used) + ' / ' + text(total)));
}

function renderNodes() {
  const byNode = new Map();
  for (const p of state.pods.values()) {
    if (!p.spec.nodeName || terminal(p)) continue;
    const r = podRequests(p);
    const u = byNode.get(p.spec.nodeName) || { cpu: 0, memory: 0, pods: 0 };
    u.cpu += r.cpu; u.memory += r.memory; u.pods += 1;
    byNode.set(p.spec.nodeName, u);
  }
  const zones = new Map();
  for (const n of [...state.nodes.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const z = n.metadata.labels?.['topology.kubernetes.io/zone'] || '(no zone)';
    if (!zones.has(z)) zones.set(z, []);
    zones.get(z).push(n);
  }
  const box = el('div', { class: 'zones' });
  for (const z of [...zones.keys()].sort()) {
    const card = el('div', { class: 'zone', 'data-zone': z }, el('h3', {}, 'zone ' + z + ' (' + zones.get(z).length + ' nodes)'));
    for (const n of zones.get(z)) {
      const a = n.status?.allocatable || {};
      const u = byNode.get(n.metadata.name) || { cpu: 0, memory: 0, pods: 0 };
      const ready = (n.status?.conditions || []).find((c) => c.type === 'Ready');
      const flags = [];
      if (ready?.status !== 'True') flags.push('NotReady');
      if (n.spec?.unschedulable) flags.push('SchedulingDisabled');
      card.append(el('div', { class: 'node', 'data-node': n.metadata.name },
        el('div', { class: 'name' }, n.metadata.name, ' ', el('span', { class: 'bad' }, flags.join(', '))),
        bar('cpu', u.cpu, qty(a.cpu), cpuText),
        bar('memory', u.memory, qty(a.memory), memText),
        bar('pods', u.pods, qty(a.pods), String)));
    }
    box.append(card);
  }
  if (!zones.size) box.append(el('p', { class: 'muted' }, 'no nodes'));
  document.getElementById('nodes').replaceChildren(box);
}

function fitError(p) {
  const c = (p.status?.conditions || []).find((x) => x.type === 'PodScheduled' && x.status === 'False');
  return c?.message || 'waiting for the scheduler';
}

function renderPending() {
  const pending = [...state.pods.values()]
    .filter((p) => !p.spec.nodeName && !terminal(p) && !p.metadata.deletionTimestamp)
    .sort((a, b) => key(a).localeCompare(key(b)));
  const t = el('table', { id: 'pending-table' }, el('tr', {}, el('th', {}, 'POD'), el('th', {}, 'CPU'), el('th', {}, 'MEMORY'), el('th', {}, 'WHY PENDING')));
  for (const p of pending) {
    const r = podRequests(p);
    const row = el('tr', { class: 'pod' + (state.selected === key(p) ? ' selected' : ''), 'data-pod': key(p) },
      el('td', { class: 'podname' }, key(p)), el('td', { class: 'num' }, cpuText(r.cpu)), el('td', { class: 'num' }, memText(r.memory)),
      el('td', { class: 'fiterror' }, fitError(p)));
    row.addEventListener('click', () => select(key(p)));
    t.append(row);
  }
  document.getElementById('pending').replaceChildren(pending.length ? t : el('p', { class: 'muted' }, 'no pending pods'));
  const sel = document.getElementById('pick');
  const all = [...state.pods.values()].filter((p) => !terminal(p)).map(key).sort();
  if (sel.options.length !== all.length + 1 || [...sel.options].slice(1).some((o, i) => o.value !== all[i])) {
    sel.replaceChildren(el('option', { value: '' }, 'pick a pod…'), ...all.map((k) => el('option', { value: k }, k)));
  }
  sel.value = state.selected && all.includes(state.selected) ? state.selected : '';
}

function renderExplain() {
  const box = document.getElementById('explain');
  const ex = state.explain;
  if (!state.selected) return box.replaceChildren(el('p', { class: 'muted' }, 'pick a pending pod above, or any pod here'));
  if (!ex) return box.replaceChildren(el('p', { class: 'muted' }, 'explaining ' + state.selected + '…'));
  if (ex.error) return box.replaceChildren(el('p', { class: 'fiterror' }, ex.error));
  const head = ex.chosen ? 'would be scheduled to ' + ex.chosen : 'fits no node: ' + (ex.fitError || ex.preFilter?.message || '');
  // score columns only when the cycle scored nodes (as kubesim explain prints them)
  const scored = ex.nodes.some((n) => n.scores);
  const plugins = scored ? ex.scorePlugins : [];
  const t = el('table', { id: 'explain-table' });
  t.append(el('tr', {}, el('th', {}, 'NODE'), ...plugins.map((s) => el('th', { class: 'plugin' }, s.name + ' (×' + s.weight + ')')),
    ...(scored ? [el('th', {}, 'TOTAL')] : []), el('th', {}, 'VERDICT'), el('th', {}, 'OTHER FAILING FILTERS')));
  for (const n of ex.nodes) {
    const cells = plugins.map((s) => {
      const c = (n.scores || []).find((x) => x.plugin === s.name);
      return el('td', { class: 'num' }, c ? String(c.normalized) : '');
    });
    const verdict = n.chosen ? 'chosen' : n.feasible ? 'feasible'
      : '✗ ' + (n.decisive ? n.decisive.plugin + ': ' + n.decisive.reasons.join(', ') : 'filtered');
    const others = (n.filters || [])
      .filter((f) => f.result !== 'pass' && f.result !== 'skip' && f.result !== 'not run' && f.plugin !== n.decisive?.plugin)
      .map((f) => f.plugin + ': ' + (f.reasons || []).join(', ')).join('; ');
    t.append(el('tr', { class: n.chosen ? 'chosen' : '', 'data-node': n.name }, el('td', {}, n.name), ...cells,
      ...(scored ? [el('td', { class: 'num' }, n.total === undefined ? '' : String(n.total))] : []),
      el('td', { class: 'verdict' + (n.feasible ? '' : ' fail') }, verdict), el('td', { class: 'fail' }, others)));
  }
  box.replaceChildren(el('p', { id: 'explain-head' }, 'Pod ' + ex.pod + ' (profile ' + ex.profile + '): ', el('span', { class: ex.chosen ? '' : 'fiterror' }, head)), t);
}

let explainSeq = 0;
async function explain() {
  const k = state.selected;
  if (!k) return;
  const seq = ++explainSeq;
  const [ns, name] = k.includes('/') ? k.split('/') : ['', k];
  let ex;
  try {
    const r = await fetch('/kubesim/v1/explain?namespace=' + encodeURIComponent(ns) + '&name=' + encodeURIComponent(name));
    ex = await r.json();
    if (!r.ok) ex = { error: ex.message || r.statusText };
  } catch (e) { ex = { error: String(e) }; }
  if (seq !== explainSeq) return;
  state.explain = ex;
  renderExplain();
}
function select(k) {
  state.selected = k || null;
  state.explain = null;
  history.replaceState(null, '', k ? '#pod=' + k : '#');
  schedule();
  explain();
}

let timer = null;
let changedSinceExplain = false;
function schedule() {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    renderNodes(); renderPending(); renderExplain();
    document.getElementById('status').textContent =
      state.nodes.size + ' nodes, ' + state.pods.size + ' pods · ' + state.watchEvents + ' watch events · updated ' + new Date().toLocaleTimeString();
    // the cluster changed: explain again (a pending pod's answer moves with it)
    if (changedSinceExplain && state.selected && state.explain) { changedSinceExplain = false; explain(); }
  }, 200);
}

async function listWatch(path, map) {
  for (;;) {
    let rv;
    try {
      const list = await (await fetch(path)).json();
      map.clear();
      for (const o of list.items) map.set(key(o), o);
      rv = list.metadata.resourceVersion;
      changedSinceExplain = true;
      schedule();
      const res = await fetch(path + '?watch=true&allowWatchBookmarks=true&resourceVersion=' + rv);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        let expired = false;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          if (ev.type === 'ERROR') { expired = true; break; }
          if (ev.type === 'BOOKMARK') continue;
          state.watchEvents++;
          if (ev.type === 'DELETED') map.delete(key(ev.object));
          else map.set(key(ev.object), ev.object);
          changedSinceExplain = true;
          schedule();
        }
        if (expired) { reader.cancel(); break; }
      }
    } catch (e) {
      document.getElementById('status').textContent = 'connection lost: ' + e + '; retrying';
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

document.getElementById('pick').addEventListener('change', (e) => select(e.target.value));
const m = /^#pod=(.+)$/.exec(location.hash);
if (m) select(decodeURIComponent(m[1]));
listWatch('/api/v1/nodes', state.nodes);
listWatch('/api/v1/pods', state.pods);
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kubesim</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body>
<h1>kubesim serve</h1>
<div id="status">connecting…</div>
<h2>Nodes by zone</h2>
<div id="nodes"></div>
<h2>Pending pods</h2>
<div id="pending"></div>
<h2>Explain <select id="pick"><option value="">pick a pod…</option></select></h2>
<div id="explain"></div>
<script>${SCRIPT}</script>
</body></html>
`;

/** Answers `GET /ui` (and `/ui/`) with the page. */
export async function uiRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (url.pathname !== '/ui' && url.pathname !== '/ui/') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
    'Content-Length': Buffer.byteLength(PAGE),
  });
  res.end(req.method === 'HEAD' ? undefined : PAGE);
  return true;
}

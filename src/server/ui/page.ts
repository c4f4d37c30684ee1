/**
 * The /ui page as one HTML document: the stylesheet and the script parts inline (nothing fetched
 * from elsewhere, no build step: the parts are strings compiled with the rest of the server), the
 * layout, and the main loop that redraws what changed at most every 250 ms.
 */
import { CHARTS_SCRIPT } from './script-charts.js';
import { DATA_SCRIPT } from './script-data.js';
import { HEATMAP_SCRIPT } from './script-heatmap.js';
import { PENDING_SCRIPT } from './script-pending.js';
import { TABLES_SCRIPT } from './script-tables.js';
import { STYLE } from './style.js';

const MAIN_SCRIPT = String.raw`
// a failure in the page is shown, and kept for tests to read
S.errors = [];
addEventListener('error', (e) => { S.errors.push(e.message); $('status').textContent = 'page error: ' + e.message; });
addEventListener('unhandledrejection', (e) => { S.errors.push(String(e.reason)); });
const views = { pods: listView('pods'), nodes: listView('nodes') };
let tab = 'pods', timer = null, lastFull = 0;
function schedule() {
  if (timer) return;
  timer = setTimeout(render, 250);
}
function render() {
  timer = null;
  const t0 = performance.now();
  if (S.dirty.nodes || S.dirty.pods) { renderZones(); renderNodeDetailIfShown(); }
  if (S.dirty.pods) { renderPending(); views.pods.updateNamespaces(); }
  if (S.dirty.pods) views.pods.refresh(false);
  if (S.dirty.nodes || S.dirty.pods) views.nodes.refresh(false);
  S.dirty.nodes = S.dirty.pods = false;
  renderSummary();
  if (S.loaded.nodes && S.loaded.pods && !S.timings.interactive) {
    S.timings.interactive = performance.now();
    S.timings.firstFullRenderMs = performance.now() - t0;
    views.pods.refresh(true); views.nodes.refresh(true);
    if (!$('shape-cpu').value && !$('shape-mem').value) defaultShape();
    refreshFragmentation();
  }
}
function renderNodeDetailIfShown() {
  if (H.picked && performance.now() - lastFull > 1000) { lastFull = performance.now(); renderNodeDetail(); }
}
function renderSummary() {
  let pending = 0;
  for (const p of S.pods.values()) if (isPending(p)) pending++;
  let notReady = 0;
  const nodes = nodesNow();
  for (const n of nodes.values()) if (!n.ready) notReady++;
  $('summary').replaceChildren(el('b', {}, fmt(nodes.size)), ' nodes', notReady ? el('span', { class: 'warn' }, ' (' + notReady + ' NotReady)') : '',
    ' · ', el('b', {}, fmt(S.pods.size)), ' pods', pending ? el('span', { class: 'warn' }, ' (' + fmt(pending) + ' pending)') : '');
  const loading = !S.loaded.nodes || !S.loaded.pods;
  $('status').textContent = (loading ? 'loading… ' : '') + fmt(S.watchEvents) + ' watch events' +
    (S.timings.firstScreen ? ' · first screen in ' + (S.timings.firstScreen / 1000).toFixed(2) + ' s' : '') +
    (S.timings.interactive ? ' · everything listed in ' + (S.timings.interactive / 1000).toFixed(2) + ' s' : '') +
    (S.has.clock === false ? ' · no kubesim clock here: wall time' : '');
}
/** The fragmentation shape to start with: the largest pending group's pod, else 1 CPU / 2Gi. */
function defaultShape() {
  const p = P.groups[0]?.pods[0];
  $('shape-cpu').value = p && p.cpu ? cpuText(p.cpu) : '1';
  $('shape-mem').value = p && p.mem ? memText(p.mem) : '2Gi';
}
function showTab(t) {
  tab = t;
  for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('on', b.dataset.tab === t);
  $('pods-view').style.display = t === 'pods' ? '' : 'none';
  $('nodes-view').style.display = t === 'nodes' ? '' : 'none';
  views[t].refresh(true);
}

for (const b of document.querySelectorAll('#metric button')) b.addEventListener('click', () => {
  H.metric = b.dataset.metric;
  for (const x of document.querySelectorAll('#metric button')) x.classList.toggle('on', x === b);
  S.dirty.nodes = true; schedule();
});
for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
$('zones').addEventListener('mousemove', (e) => { if (e.target.tagName === 'CANVAS') hover(e.target, e); else $('tip').style.display = 'none'; });
$('zones').addEventListener('mouseleave', () => ($('tip').style.display = 'none'));
$('zones').addEventListener('click', (e) => { if (e.target.tagName === 'CANVAS') { const n = cellAt(e.target, e); if (n) pickNode(n.name); } });
for (const i of [$('shape-cpu'), $('shape-mem')]) i.addEventListener('change', refreshFragmentation);
wireClock();
showTab('pods');
renderExplain();
renderNodeDetail();
const m = /^#pod=(.+)$/.exec(location.hash);
if (m) select(decodeURIComponent(m[1]));
clockCall('');
pollStats();
// the summary first (one small answer), then the lists: the server answers one request at a time
loadSummary().finally(() => { listWatch('nodes'); listWatch('pods'); listWatch('events'); });
setInterval(() => { clockCall(''); pollStats(); }, 2000);
setInterval(() => { renderClock(); }, 250);
setInterval(() => { sample(); renderCharts(); for (const v of Object.values(views)) if (v.stale) v.refresh(false); }, 1000);
setInterval(() => { if (S.timings.interactive) refreshFragmentation(); }, 10000);
addEventListener('resize', () => { S.dirty.nodes = true; schedule(); });
`;

const LEGEND = `<div class="legend"><span>requested / allocatable:</span><span class="scale">
<span class="sw" style="background:#eceff3"></span>0
<span class="sw" style="background:#d4e4f7"></span><span class="sw" style="background:#a3c4ec"></span>40
<span class="sw" style="background:#6a9fdc"></span><span class="sw" style="background:#3a74c2"></span>80
<span class="sw" style="background:#1f4e96"></span>95
<span class="sw" style="background:#0b2b5c"></span>100%</span>
<span><span class="sw" style="background:#cf222e"></span>NotReady</span>
<span><span class="sw" style="background:repeating-linear-gradient(45deg,#a3c4ec 0 2px,#57606a 2px 3px)"></span>cordoned</span>
<span><span class="sw" style="background:linear-gradient(225deg,#e16f24 0 35%,#a3c4ec 35%)"></span>tainted (NoSchedule/NoExecute)</span>
<span>hover a cell for the node, click for its detail</span></div>`;

export const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kubesim</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body>
<header>
<h1>kubesim</h1><span class="summary" id="summary">connecting…</span>
<span id="clock"><span id="vtime" title="virtual time (elapsed since the simulation started)">…</span>
<span id="clock-controls"><button id="clock-pause">pause</button>
<button data-step="10s" title="run 10 virtual seconds now">+10s</button><button data-step="1m" title="run 1 virtual minute now">+1m</button><button data-step="10m" title="run 10 virtual minutes now">+10m</button>
<select id="clock-speed" title="virtual seconds per wall second">${[0.5, 1, 2, 5, 10, 30, 60, 100, 300]
  .map((s) => `<option value="${s}">${s}×</option>`)
  .join('')}</select></span></span>
<div id="status">connecting…</div>
</header>
<main>
<h2>Zones <span class="seg" id="metric"><button data-metric="cpu" class="on">CPU</button><button data-metric="memory">memory</button><button data-metric="pods">pods</button><button data-metric="max">max</button></span>
<span class="hint">fragmentation for a pod of <input id="shape-cpu" size="4" title="CPU request"> CPU <input id="shape-mem" size="5" title="memory request"> memory</span><span class="err" id="shape-error"></span></h2>
<div class="zones" id="zones"></div>
${LEGEND}
<div class="cols">
<div><h2>Pending pods by reason <span class="hint" id="pending-count"></span></h2><div class="panel" id="pending"></div></div>
<div><h2>Node</h2><div class="panel" id="node-detail"></div></div>
</div>
<div id="explain-section"><h2>Explain</h2><div class="panel" id="explain"></div></div>
<h2>Over time <span class="hint">since this page opened, on the virtual clock</span></h2>
<div class="charts" id="charts"></div>
<h2 class="tabs"><button data-tab="pods" class="on">Pods</button><button data-tab="nodes">Nodes</button></h2>
<div class="panel"><div id="pods-view"></div><div id="nodes-view"></div></div>
</main>
<div id="tip"></div>
<script>${DATA_SCRIPT}${TABLES_SCRIPT}${HEATMAP_SCRIPT}${PENDING_SCRIPT}${CHARTS_SCRIPT}${MAIN_SCRIPT}</script>
</body></html>
`;

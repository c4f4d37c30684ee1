/**
 * Over time and the clock (browser code, see script-data.ts). Every second the page samples what
 * the watch has brought — pods by phase, nodes by condition, binds (a pod's nodeName set), eviction
 * events — plus the 429 count of /kubesim/v1/stats, against virtual time (the series `kubesim
 * simulate` reports, from the page's opening on), and draws them as small SVG line charts.
 * The clock row reads and drives /kubesim/v1/clock (pause, resume, step, speed); against a server
 * without it the page runs on the wall clock and hides the controls.
 */
export const CHARTS_SCRIPT = String.raw`
const C = { samples: [], last: null };
const SERIES = [
  { id: 'phase', title: 'pods by phase', lines: [['Pending', '#bf8700'], ['Running', '#1a7f37'], ['Succeeded', '#0969da'], ['Failed', '#cf222e']] },
  { id: 'nodes', title: 'nodes by condition', lines: [['Ready', '#1a7f37'], ['NotReady', '#cf222e'], ['cordoned', '#57606a']] },
  { id: 'binds', title: 'scheduling throughput (pods bound / virtual s)', lines: [['binds/s', '#8250df']] },
  { id: 'throttled', title: '429 answers (per sample)', lines: [['429s', '#bc4c00']] },
  { id: 'evictions', title: 'evictions (per sample)', lines: [['evictions', '#cf222e']] },
];

/** Virtual now in ms: the clock endpoint's answer moved on by the wall time since, × speed. */
function virtualNow() {
  if (!S.clock) return Date.now();
  const base = Date.parse(S.clock.now);
  return S.clock.paused ? base : base + (performance.now() - S.clockAt) * S.clock.speed;
}

function sample() {
  // counts while the lists still arrive would chart the loading, not the cluster
  if (!S.timings.interactive) return;
  const v = virtualNow();
  const phase = { Pending: 0, Running: 0, Succeeded: 0, Failed: 0 };
  for (const p of S.pods.values()) phase[p.phase] = (phase[p.phase] || 0) + 1;
  const nodes = { Ready: 0, NotReady: 0, cordoned: 0 };
  for (const n of S.nodes.values()) { nodes[n.ready ? 'Ready' : 'NotReady']++; if (n.unschedulable) nodes.cordoned++; }
  const now = { t: v, binds: S.binds, evictions: S.evictions, throttled: S.throttled };
  const prev = C.last || now;
  const dt = Math.max(1e-3, (now.t - prev.t) / 1000);
  C.samples.push({ t: v, phase, nodes,
    binds: { 'binds/s': prev === now ? 0 : (now.binds - prev.binds) / dt },
    throttled: { '429s': S.throttled === undefined ? null : (now.throttled || 0) - (prev.throttled || 0) },
    evictions: { evictions: now.evictions - prev.evictions } });
  if (C.samples.length > 900) C.samples.shift();
  C.last = now;
}

function renderCharts() {
  const box = $('charts');
  const NS = 'http://www.w3.org/2000/svg';
  const svgEl = () => { const e = document.createElementNS(NS, 'svg'); e.setAttribute('viewBox', '0 0 300 90'); e.setAttribute('preserveAspectRatio', 'none'); return e; };
  if (!box.children.length) box.replaceChildren(...SERIES.map((s) => el('div', { class: 'chart', id: 'chart-' + s.id },
    el('h4', {}, s.title), el('div', { class: 'val' }), svgEl(),
    el('div', { class: 'keys' }, ...s.lines.map(([n, c]) => el('span', {}, el('span', { class: 'sw', style: 'display:inline-block;width:10px;height:3px;vertical-align:middle;margin-right:3px;background:' + c }), n))))));
  const xs = C.samples;
  if (!xs.length) return;
  const t0 = xs[0].t, t1 = Math.max(xs[xs.length - 1].t, t0 + 1000);
  for (const s of SERIES) {
    const card = $('chart-' + s.id), svg = card.querySelector('svg');
    const get = (x, n) => x[s.id][n];
    if (s.id === 'throttled' && S.throttled === undefined) { card.querySelector('.val').textContent = 'not served here (kubesim only)'; continue; }
    let max = 1;
    for (const x of xs) for (const [n] of s.lines) max = Math.max(max, get(x, n) || 0);
    const X = (t) => ((t - t0) / (t1 - t0)) * 298 + 1, Y = (v) => 86 - (v / max) * 80;
    const kids = [];
    const axis = document.createElementNS(NS, 'line');
    for (const [k, v] of Object.entries({ x1: 0, x2: 300, y1: 86.5, y2: 86.5, stroke: '#d0d7de' })) axis.setAttribute(k, v);
    kids.push(axis);
    for (const [n, colour] of s.lines) {
      const pl = document.createElementNS(NS, 'polyline');
      pl.setAttribute('points', xs.map((x) => X(x.t).toFixed(1) + ',' + Y(get(x, n) || 0).toFixed(1)).join(' '));
      pl.setAttribute('fill', 'none'); pl.setAttribute('stroke', colour); pl.setAttribute('stroke-width', '1.5');
      pl.setAttribute('vector-effect', 'non-scaling-stroke');
      kids.push(pl);
    }
    svg.replaceChildren(...kids);
    const lastX = xs[xs.length - 1];
    card.querySelector('.val').textContent = s.lines.map(([n]) => {
      const v = get(lastX, n) || 0;
      return (s.lines.length > 1 ? n + ' ' : '') + (Number.isInteger(v) ? fmt(v) : v.toFixed(1));
    }).join(' · ') + ' · max ' + (Number.isInteger(max) ? fmt(max) : max.toFixed(1)) + ' · ' + elapsedText(t1 - t0);
  }
}

function elapsedText(ms) {
  const s = Math.round(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return (h ? h + 'h' : '') + (h || m ? String(m).padStart(h ? 2 : 1, '0') + 'm' : '') + String(s % 60).padStart(h || m ? 2 : 1, '0') + 's';
}

function renderClock() {
  const v = virtualNow(), c = S.clock;
  const t = $('vtime');
  t.dataset.ms = String(v);
  t.replaceChildren(new Date(v).toISOString().replace('T', ' ').slice(0, 19) + ' ',
    el('span', { class: 'elapsed' }, c ? '+' + elapsedText(c.elapsedSeconds * 1000 + (v - Date.parse(c.now))) : '(wall clock)'));
  $('clock-pause').textContent = c?.paused ? 'resume' : 'pause';
  $('clock-speed').value = String(c?.speed ?? 1);
  if (c && ![...$('clock-speed').options].some((o) => o.value === String(c.speed)))
    $('clock-speed').append(el('option', { value: String(c.speed) }, c.speed + '×'));
  $('clock-speed').value = String(c?.speed ?? 1);
}

async function clockCall(query) {
  try {
    const r = await fetch('/kubesim/v1/clock' + (query ? '?' + query : ''), { method: query ? 'POST' : 'GET' });
    if (r.status === 404) { S.has.clock = false; $('clock-controls').style.display = 'none'; return; }
    const body = await r.json();
    if (!r.ok) throw new Error(body.message || r.statusText);
    S.clock = body; S.clockAt = performance.now(); S.has.clock = true;
    $('clock-controls').style.display = '';
  } catch (e) { $('status').textContent = 'clock: ' + e.message; }
  renderClock();
}

async function pollStats() {
  if (S.has.stats === false) return;
  try { S.throttled = (await getJson('/kubesim/v1/stats')).tooManyRequests; S.has.stats = true; }
  catch (e) { if (e.code === 404) S.has.stats = false; }
}

function wireClock() {
  $('clock-pause').addEventListener('click', () => clockCall('paused=' + !S.clock?.paused));
  for (const b of document.querySelectorAll('[data-step]')) b.addEventListener('click', async () => {
    for (const x of document.querySelectorAll('[data-step]')) x.disabled = true;
    await clockCall('step=' + b.dataset.step);
    for (const x of document.querySelectorAll('[data-step]')) x.disabled = false;
  });
  $('clock-speed').addEventListener('change', (e) => clockCall('speed=' + e.target.value));
}
`;

/**
 * The overview (browser code, see script-data.ts): per zone, a heatmap with one cell per node,
 * grouped by instance type, coloured by requested / allocatable of the chosen resource, with
 * NotReady, cordoned and tainted nodes marked; the zone's aggregates (allocatable, requested, free)
 * and, from /kubesim/v1/fragmentation when the server has it, the fragmentation `kubesim plan`
 * reports for a pod shape. Hovering a cell names the node; clicking it opens the node's detail.
 */
export const HEATMAP_SCRIPT = String.raw`
const H = { metric: 'cpu', frag: null, fragShape: null, cells: new Map(), picked: null };
// sequential blues, light to dark; an empty node is grey (the legend shows the same steps)
const STEPS = [[0.2, '#d4e4f7'], [0.4, '#a3c4ec'], [0.6, '#6a9fdc'], [0.8, '#3a74c2'], [0.95, '#1f4e96'], [Infinity, '#0b2b5c']];
const colourOf = (f) => (f <= 0 ? '#eceff3' : STEPS.find(([hi]) => f < hi)[1]);
function fractionOf(n) {
  const u = usageOf(n.name);
  const f = { cpu: n.cpu ? u.cpu / n.cpu : 0, memory: n.mem ? u.mem / n.mem : 0, pods: n.pods ? u.pods / n.pods : 0 };
  return H.metric === 'max' ? Math.max(f.cpu, f.memory, f.pods) : f[H.metric];
}

function zonesOf() {
  const zones = new Map();
  for (const n of nodesNow().values()) {
    if (!zones.has(n.zone)) zones.set(n.zone, []);
    zones.get(n.zone).push(n);
  }
  return [...zones].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function aggRow(label, used, total, text) {
  const p = total > 0 ? used / total : 0;
  return el('tr', {}, el('td', {}, label), el('td', {}, text(used)), el('td', {}, text(total)), el('td', {}, text(Math.max(0, total - used))),
    el('td', {}, el('span', { class: 'pct' }, el('i', { style: 'width:' + Math.min(100, p * 100).toFixed(1) + '%' })), Math.round(p * 100) + '%'));
}

function fragLine(z) {
  const f = H.frag?.zones?.[z === '(no zone)' ? '' : z];
  if (S.has.frag === false) return el('div', { class: 'frag' }, 'fragmentation: not served here (kubesim only)');
  if (!f) return el('div', { class: 'frag' }, 'fragmentation: …');
  const parts = Object.entries(f.totals).map(([r, t]) => (r === 'memory' ? 'memory' : r) + ' ' + Math.round(t.strandedPct) + '% stranded');
  return el('div', { class: 'frag', 'data-fits': f.fitsByResources }, 'fits ' + fmt(f.fitsByResources) + ' more × ' + shapeText() + ' · ' + parts.join(', ') +
    ' · ' + fmt(f.nodesWithStrandedRoom) + ' node(s) with room too small for one');
}
const shapeText = () => '(' + (H.fragShape ? [H.fragShape.cpu && H.fragShape.cpu + ' CPU', H.fragShape.memory].filter(Boolean).join(', ') : '?') + ')';

function renderZones() {
  const box = $('zones');
  const zones = zonesOf();
  const panels = [];
  H.cells.clear();
  for (const [z, nodes] of zones) {
    nodes.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : a.name < b.name ? -1 : 1));
    let cpu = 0, cpuU = 0, mem = 0, memU = 0, pods = 0, podsU = 0, notReady = 0, cordoned = 0, tainted = 0;
    for (const n of nodes) {
      const u = usageOf(n.name);
      cpu += n.cpu; cpuU += u.cpu; mem += n.mem; memU += u.mem; pods += n.pods; podsU += u.pods;
      if (!n.ready) notReady++; if (n.unschedulable) cordoned++; if (n.tainted) tainted++;
    }
    const counts = fmt(nodes.length) + (nodes.length === 1 ? ' node' : ' nodes') + (notReady ? ' · ' + notReady + ' NotReady' : '') +
      (cordoned ? ' · ' + cordoned + ' cordoned' : '') + (tainted ? ' · ' + tainted + ' tainted' : '');
    const canvas = el('canvas', { class: 'heat', 'data-zone': z });
    const panel = el('div', { class: 'zone', 'data-zone': z },
      el('h3', {}, el('span', {}, 'zone ' + z), el('span', { class: 'counts' }, counts)),
      el('table', { class: 'agg' },
        el('tr', {}, el('th', {}, ''), el('th', {}, 'requested'), el('th', {}, 'allocatable'), el('th', {}, 'free'), el('th', {}, 'used')),
        aggRow('CPU', cpuU, cpu, cpuText), aggRow('memory', memU, mem, memText), aggRow('pods', podsU, pods, fmt)),
      fragLine(z), canvas);
    panels.push([panel, canvas, nodes]);
  }
  box.replaceChildren(...panels.map((p) => p[0]));
  if (!zones.length) box.replaceChildren(el('p', { class: 'muted' }, S.loaded.nodes ? 'no nodes' : 'loading nodes…'));
  for (const [, canvas, nodes] of panels) drawHeat(canvas, nodes);
  // the first screen: every node in its zone with its usage, from the lists or the summary
  if (!S.timings.firstScreen && zones.length && (S.loaded.nodes || S.sumNodes) && (S.loaded.pods || S.sumUsage))
    S.timings.firstScreen = performance.now();
}

/** Lays the zone's nodes out in rows of cells under one caption per instance type, and draws them. */
function drawHeat(canvas, nodes) {
  const width = canvas.clientWidth || 360;
  const size = nodes.length <= 12 ? 34 : nodes.length <= 60 ? 22 : nodes.length <= 600 ? 12 : 8, gap = size >= 12 ? 2 : 1, pitch = size + gap;
  const perRow = Math.max(1, Math.floor((width + gap) / pitch));
  const groups = [];
  for (const n of nodes) { const g = groups[groups.length - 1]; if (g && g.name === n.group) g.nodes.push(n); else groups.push({ name: n.group, nodes: [n] }); }
  let h = 0;
  for (const g of groups) h += 15 + Math.ceil(g.nodes.length / perRow) * pitch + 3;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = width * dpr; canvas.height = h * dpr; canvas.style.height = h + 'px';
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  ctx.font = '11px system-ui, sans-serif'; ctx.textBaseline = 'top';
  const layout = [];
  let y = 0;
  for (const g of groups) {
    ctx.fillStyle = '#57606a';
    ctx.fillText(g.name + ' · ' + fmt(g.nodes.length), 0, y + 1);
    y += 15;
    g.nodes.forEach((n, i) => {
      const x = (i % perRow) * pitch, yy = y + Math.floor(i / perRow) * pitch;
      layout.push([x, yy, n.name]);
      ctx.fillStyle = n.ready ? colourOf(fractionOf(n)) : '#cf222e';
      ctx.fillRect(x, yy, size, size);
      if (!n.ready) { // NotReady: a white cross on red
        ctx.strokeStyle = '#fff'; ctx.lineWidth = 1; ctx.beginPath();
        ctx.moveTo(x + 1.5, yy + 1.5); ctx.lineTo(x + size - 1.5, yy + size - 1.5); ctx.moveTo(x + size - 1.5, yy + 1.5); ctx.lineTo(x + 1.5, yy + size - 1.5); ctx.stroke();
      } else if (n.unschedulable) { // cordoned: hatched grey over the colour
        ctx.strokeStyle = '#57606a'; ctx.lineWidth = 1; ctx.beginPath();
        for (let d = -size; d < size; d += 3) { ctx.moveTo(x + Math.max(0, d), yy + Math.max(0, -d)); ctx.lineTo(x + Math.min(size, size + d), yy + Math.min(size, size - d)); }
        ctx.stroke();
      }
      if (n.tainted) { // tainted: an orange corner
        ctx.fillStyle = '#e16f24'; ctx.beginPath(); ctx.moveTo(x + size, yy); ctx.lineTo(x + size - Math.max(3, size / 2.5), yy); ctx.lineTo(x + size, yy + Math.max(3, size / 2.5)); ctx.fill();
      }
      if (n.name === H.picked) { ctx.strokeStyle = '#bf3989'; ctx.lineWidth = 2; ctx.strokeRect(x - 1, yy - 1, size + 2, size + 2); }
    });
    y += Math.ceil(g.nodes.length / perRow) * pitch + 3;
  }
  H.cells.set(canvas.dataset.zone, { layout, size });
}

function cellAt(canvas, ev) {
  const c = H.cells.get(canvas.dataset.zone);
  if (!c) return null;
  const r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
  for (const [cx, cy, name] of c.layout) if (x >= cx && x < cx + c.size + 1 && y >= cy && y < cy + c.size + 1) return nodesNow().get(name);
  return null;
}

function nodeLines(n) {
  const u = usageOf(n.name);
  const flags = [!n.ready && 'NotReady', n.unschedulable && 'SchedulingDisabled', ...n.taints.filter((t) => t.effect !== 'PreferNoSchedule').map((t) => 'taint ' + t.key + '=' + t.value + ':' + t.effect)].filter(Boolean);
  return [n.name + ' · ' + n.group, 'CPU ' + cpuText(u.cpu) + ' / ' + cpuText(n.cpu) + ' (' + pct(u.cpu, n.cpu) + '%)',
    'memory ' + memText(u.mem) + ' / ' + memText(n.mem) + ' (' + pct(u.mem, n.mem) + '%)', 'pods ' + u.pods + ' / ' + n.pods, ...flags];
}

function hover(canvas, ev) {
  const n = cellAt(canvas, ev), tip = $('tip');
  if (!n) { tip.style.display = 'none'; return; }
  const lines = nodeLines(n);
  tip.replaceChildren(el('b', {}, lines[0]), ...lines.slice(1).map((l, i) => el('div', { class: i >= 3 ? 'bad' : '' }, l)));
  tip.style.display = 'block';
  tip.style.left = Math.min(ev.clientX + 14, innerWidth - 370) + 'px';
  tip.style.top = (ev.clientY + 14) + 'px';
  tip.dataset.node = n.name;
}

function pickNode(name) {
  H.picked = name;
  $('node-detail').scrollIntoView({ block: 'nearest' });
  renderNodeDetail();
  S.dirty.nodes = true; schedule();
}

let nodePodsTable = null;
function renderNodeDetail() {
  const box = $('node-detail'), n = nodesNow().get(H.picked);
  if (!n) { box.replaceChildren(el('p', { class: 'muted' }, H.picked ? 'node ' + H.picked + ' is gone' : 'click a node in a heatmap or the nodes table')); nodePodsTable = null; return; }
  const lines = nodeLines(n);
  const pods = [...S.pods.values()].filter((p) => p.node === n.name);
  const list = el('div', { id: 'node-pods' });
  box.replaceChildren(el('div', { class: 'detail', 'data-node': n.name },
    el('h3', {}, lines[0], ' ', el('span', { class: 'bad' }, [!n.ready && 'NotReady', n.unschedulable && 'SchedulingDisabled'].filter(Boolean).join(', '))),
    el('div', {}, lines.slice(1, 4).join(' · ')),
    el('div', { class: 'chips' }, ...Object.entries(n.labels).map(([k, v]) => el('span', {}, k + '=' + v))),
    el('div', { class: 'chips' }, ...(n.taints.length ? n.taints.map((t) => el('span', { class: 'taint' }, t.key + (t.value ? '=' + t.value : '') + ':' + t.effect)) : [el('span', {}, 'no taints')])),
    el('table', { class: 'kv' }, el('tr', {}, el('th', {}, 'condition'), el('th', {}, 'status'), el('th', {}, 'reason'), el('th', {}, 'since')),
      ...n.conditions.map((c) => el('tr', {}, el('td', {}, c.type), el('td', { class: (c.type === 'Ready') === (c.status === 'True') ? '' : 'fiterror' }, c.status), el('td', { title: c.message }, c.reason), el('td', {}, c.since)))),
    el('div', { class: 'muted' }, pods.length + ' pods on this node (click one to explain it):'), list));
  nodePodsTable = VTable(list, [{ name: 'POD', cell: (r) => r.key, width: 'minmax(160px, 2fr)' }, { name: 'STATUS', cell: (r) => r.cells[2] ?? r.phase },
    { name: 'CPU', cell: (r) => cpuText(r.cpu), sort: (r) => r.cpu, num: true }, { name: 'MEMORY', cell: (r) => memText(r.mem), sort: (r) => r.mem, num: true }],
    (r) => select(r.key), { height: 200 });
  nodePodsTable.set(pods);
}

// the fragmentation shape: the first pending group's pod, else what the user typed
async function refreshFragmentation() {
  if (S.has.frag === false) return;
  const cpu = $('shape-cpu').value.trim(), mem = $('shape-mem').value.trim();
  const q = new URLSearchParams();
  if (cpu) q.set('cpu', cpu); if (mem) q.set('memory', mem);
  try {
    H.frag = await getJson('/kubesim/v1/fragmentation?' + q);
    H.fragShape = { cpu, memory: mem };
    S.has.frag = true;
    $('shape-error').textContent = '';
  } catch (e) {
    if (e.code === 404) S.has.frag = false; else $('shape-error').textContent = e.message;
  }
  S.dirty.nodes = true; schedule();
}
`;

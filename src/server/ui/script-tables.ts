/**
 * The page's tables (browser code, see script-data.ts): one virtualized table (only the rows in
 * view are in the DOM, so 150,000 rows scroll as 30 do), used for pods, nodes, a node's pods and
 * the explain rows; the pods and nodes tables with kubectl's columns (the server's Table column
 * definitions, every column as `-o wide` shows them, NAMESPACE first as with `-A`), sorting by any
 * column and filtering by namespace, label selector, field selector and name. The time each sort or
 * filter took in the page is kept in kubesimUi.timings and shown under the table.
 */
export const TABLES_SCRIPT = String.raw`
/**
 * cols: [{ name, width, cell(rec) -> text, sort(rec) -> number|string, cls(rec)? }];
 * onPick(rec) when a row is clicked.
 */
function VTable(host, cols, onPick, opts) {
  const rowH = 21, height = (opts && opts.height) || 420;
  const grid = cols.map((c) => c.width || 'minmax(80px, 1fr)').join(' ');
  const head = el('div', { class: 'head', style: 'grid-template-columns:' + grid });
  const inner = el('div', { style: 'position:relative' });
  const body = el('div', { class: 'body', style: 'height:' + height + 'px' }, head, inner);
  const foot = el('div', { class: 'foot' });
  host.replaceChildren(el('div', { class: 'vt' }, body, foot));
  const t = { rows: [], sortCol: (opts && opts.sortCol) ?? 0, desc: false, selected: null, footText: '', onSort: null };
  cols.forEach((c, i) => head.append(el('div', { 'data-col': c.name, title: c.title || c.name, onclick: () => {
    if (t.sortCol === i) t.desc = !t.desc; else { t.sortCol = i; t.desc = false; }
    if (t.onSort) t.onSort(); else t.sort();
  } }, c.name)));
  let drawn = '';
  t.sort = () => {
    const c = cols[t.sortCol], key = c.sort || c.cell, dir = t.desc ? -1 : 1;
    // keys computed once per row, not once per comparison
    const keyed = t.rows.map((r) => [key(r), r]);
    keyed.sort((a, b) => (a[0] < b[0] ? -dir : a[0] > b[0] ? dir : 0));
    t.rows = keyed.map((x) => x[1]);
    [...head.children].forEach((h, i) => h.className = i === t.sortCol ? (t.desc ? 'desc' : 'asc') : '');
    drawn = ''; t.draw();
  };
  t.set = (rows) => { t.rows = rows; t.sort(); };
  t.draw = () => {
    inner.style.height = (t.rows.length * rowH) + 'px';
    // no taller than its rows: a short table takes little room
    body.style.height = Math.min(height, head.offsetHeight + t.rows.length * rowH + (body.scrollWidth > body.clientWidth ? 18 : 2)) + 'px';
    const first = Math.max(0, Math.floor((body.scrollTop - head.offsetHeight) / rowH) - 5);
    const last = Math.min(t.rows.length, Math.max(0, first) + Math.ceil(height / rowH) + 10);
    const sig = first + ':' + last + ':' + t.rows.length + ':' + t.selected;
    if (sig === drawn) return;
    drawn = sig;
    const frag = [];
    for (let i = first; i < last; i++) {
      const r = t.rows[i];
      const row = el('div', { class: 'row' + (r.key === t.selected ? ' on' : '') + (r.rowCls ? ' ' + r.rowCls : ''),
        'data-key': r.key, style: 'top:' + (i * rowH) + 'px;height:' + rowH + 'px;grid-template-columns:' + grid,
        onclick: () => onPick && onPick(r) });
      for (const c of cols) {
        const v = c.cell(r);
        row.append(el('div', { class: c.cls ? c.cls(r) : c.num ? 'num' : '', title: String(v) }, String(v)));
      }
      frag.push(row);
    }
    inner.replaceChildren(...frag);
    foot.textContent = fmt(t.rows.length) + ' rows' + (t.footText ? ' · ' + t.footText : '');
  };
  t.redraw = () => { drawn = ''; t.draw(); };
  t.visibleKeys = () => [...inner.children].map((r) => r.dataset.key);
  body.addEventListener('scroll', () => t.draw());
  return t;
}

// kubectl's Age: columns whose definition says so sort by creation time, Restarts by its number
function serverCols(defs, fallback) {
  const list = defs || fallback;
  return list.map((d, i) => {
    const c = { name: d.name.toUpperCase(), title: d.description || d.name, cell: (r) => r.cells[i] ?? '' };
    if (d.name === 'Age') c.sort = (r) => -r.created;
    else if (d.name === 'Restarts' || d.type === 'integer' || d.type === 'number') { c.sort = (r) => parseFloat(r.cells[i]) || 0; c.num = true; }
    if (d.name === 'Name') c.width = 'minmax(180px, 2fr)';
    else if (d.name === 'Age' || d.name === 'Ready' || d.name === 'Restarts') c.width = '64px';
    return c;
  });
}
const POD_FALLBACK = [{ name: 'Name' }, { name: 'Ready' }, { name: 'Status' }, { name: 'Restarts' }, { name: 'Age' }, { name: 'IP' }, { name: 'Node' }];
const NODE_FALLBACK = [{ name: 'Name' }, { name: 'Status' }, { name: 'Roles' }, { name: 'Age' }, { name: 'Version' }];
const pct = (a, b) => (b > 0 ? Math.round(a / b * 100) : 0);

const POD_FIELDS = ['metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName',
  'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'];
const NODE_FIELDS = ['metadata.name', 'spec.unschedulable'];

/** One list view: its table, its filter inputs, and when to refilter. */
function listView(kind) {
  const V = { kind, table: null, colsSig: '', filter: () => true, error: '', stale: true, lastFilter: 0 };
  const fields = kind === 'pods' ? POD_FIELDS : NODE_FIELDS;
  const box = $(kind + '-view');
  const input = (name, ph, cls) => el('input', { id: kind + '-' + name, placeholder: ph, class: cls || '', spellcheck: 'false' });
  const ns = kind === 'pods' ? el('select', { id: 'pods-ns' }, el('option', { value: '' }, 'all namespaces')) : null;
  const label = input('labels', 'app=web,tier notin (db)', 'sel');
  const field = input('fields', kind === 'pods' ? 'status.phase=Pending' : 'spec.unschedulable=true', 'sel');
  const name = input('name', 'name contains…');
  const err = el('span', { class: 'err', id: kind + '-error' });
  const tableBox = el('div');
  box.replaceChildren(el('div', { class: 'filters' },
    ns && el('label', {}, 'namespace', ns), el('label', {}, '-l', label), el('label', {}, '--field-selector', field),
    el('label', {}, 'name', name), err), tableBox);
  const apply = () => {
    try {
      const ls = parseLabelSelector(label.value), fs = parseFieldSelector(field.value, fields);
      const nsv = ns ? ns.value : '', nv = name.value.trim();
      V.filter = (r) => (!nsv || r.ns === nsv) && (!nv || r.name.includes(nv)) && ls(r.labels) && fs(r.fields);
      V.error = ''; label.className = field.className = 'sel';
    } catch (e) {
      V.error = e.message;
      (e.message.startsWith('field') || e.message.startsWith('invalid selector') ? field : label).className = 'sel bad';
    }
    err.textContent = V.error;
    V.refresh(true);
  };
  let deb = null;
  for (const i of [label, field, name]) i.addEventListener('input', () => { clearTimeout(deb); deb = setTimeout(apply, 150); });
  for (const i of [label, field, name]) i.addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(deb); apply(); } });
  if (ns) ns.addEventListener('change', apply);
  V.columns = () => {
    if (kind === 'pods') return [{ name: 'NAMESPACE', cell: (r) => r.ns, width: 'minmax(90px, 1fr)' }, ...serverCols(S.podCols, POD_FALLBACK), { name: 'CPU', title: 'CPU requested', cell: (r) => cpuText(r.cpu), sort: (r) => r.cpu, num: true, width: '60px' },
      { name: 'MEMORY', title: 'memory requested', cell: (r) => memText(r.mem), sort: (r) => r.mem, num: true, width: '70px' }];
    const u = (r) => usageOf(r.name);
    return [...serverCols(S.nodeCols, NODE_FALLBACK),
      { name: 'ZONE', cell: (r) => r.zone }, { name: 'INSTANCE-TYPE', cell: (r) => r.group },
      { name: 'CPU%', title: 'CPU requested / allocatable', cell: (r) => pct(u(r).cpu, r.cpu) + '%', sort: (r) => u(r).cpu / (r.cpu || 1), num: true, width: '56px' },
      { name: 'MEM%', title: 'memory requested / allocatable', cell: (r) => pct(u(r).mem, r.mem) + '%', sort: (r) => u(r).mem / (r.mem || 1), num: true, width: '56px' },
      { name: 'PODS', title: 'pods / allocatable pods', cell: (r) => u(r).pods + '/' + r.pods, sort: (r) => u(r).pods, num: true, width: '64px' }];
  };
  /** Refilters and resorts (now when the user asked, at most every 2 s while the watch streams). */
  V.refresh = (now) => {
    const sig = JSON.stringify((kind === 'pods' ? S.podCols : S.nodeCols)?.map((c) => c.name) || []);
    if (!V.table || sig !== V.colsSig) {
      V.colsSig = sig;
      const old = V.table;
      V.table = VTable(tableBox, V.columns(), (r) => kind === 'pods' ? select(r.key) : pickNode(r.name), { height: 440, sortCol: old ? old.sortCol : (kind === 'pods' ? 1 : 0) });
      if (old) V.table.desc = old.desc;
      V.table.onSort = () => { const t0 = performance.now(); V.table.sort(); note('sort', t0); };
    }
    if (!now && performance.now() - V.lastFilter < 2000) { V.stale = true; return; }
    const t0 = performance.now();
    const all = kind === 'pods' ? S.pods : S.nodes;
    const rows = [];
    if (!V.error) for (const r of all.values()) if (V.filter(r)) rows.push(r);
    V.table.set(rows);
    V.stale = false; V.lastFilter = performance.now();
    if (now) note('filter', t0);
  };
  const note = (what, t0) => {
    const ms = performance.now() - t0;
    (S.timings[kind + ':' + what] = S.timings[kind + ':' + what] || []).push(ms);
    V.table.footText = what + ' of ' + fmt((kind === 'pods' ? S.pods : S.nodes).size) + ' ' + kind + ' took ' + ms.toFixed(1) + ' ms';
    V.table.redraw();
  };
  V.updateNamespaces = () => {
    if (!ns) return;
    const set = new Set();
    for (const r of S.pods.values()) set.add(r.ns);
    const want = [...set].sort();
    if (ns.options.length - 1 !== want.length) {
      const v = ns.value;
      ns.replaceChildren(el('option', { value: '' }, 'all namespaces'), ...want.map((n) => el('option', { value: n }, n)));
      ns.value = v;
    }
  };
  return V;
}
`;

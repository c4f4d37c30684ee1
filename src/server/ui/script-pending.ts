/**
 * Pending pods grouped by the scheduler's verdict (browser code, see script-data.ts): pods whose
 * PodScheduled=False message gives the same reasons (`0/5000 nodes are available: 4163 Insufficient
 * cpu, 781 node(s) had untolerated taint(s). preemption: …` → group "4163 Insufficient cpu, 781
 * node(s) had untolerated taint(s)"), largest group first; a group opens the explain of one member.
 * The explain is GET /kubesim/v1/explain (kubesim only): a count of nodes per verdict, then every
 * node's row — verdict, other failing filters, per-plugin scores — in a virtualized table.
 */
export const PENDING_SCRIPT = String.raw`
const P = { groups: [], selected: null, explain: null, openGroup: null, sig: '' };

/** The reasons of a FitError, without the node total and the preemption postscript. */
function reasonsOf(msg) {
  if (!msg) return 'not tried by a scheduler yet';
  const m = /^0\/[0-9]+ nodes are available: ([\s\S]*?)(?:\.\s*preemption:[\s\S]*)?$/.exec(msg);
  return m ? m[1].replace(/\.$/, '') : msg;
}
const isPending = (p) => !p.node && !p.terminal && !p.deleting;

function renderPending() {
  const groups = new Map();
  for (const p of S.pods.values()) {
    if (!isPending(p)) continue;
    const k = reasonsOf(p.fitError);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { reasons: k, pods: [] }));
    g.pods.push(p);
  }
  P.groups = [...groups.values()].sort((a, b) => b.pods.length - a.pods.length || (a.reasons < b.reasons ? -1 : 1));
  for (const g of P.groups) g.pods.sort((a, b) => (a.key < b.key ? -1 : 1));
  const sig = P.groups.map((g) => g.pods.length + g.reasons + g.pods[0].key).join('|') + P.openGroup;
  if (sig === P.sig) return;
  P.sig = sig;
  const total = P.groups.reduce((n, g) => n + g.pods.length, 0);
  $('pending-count').textContent = total ? fmt(total) + ' pending in ' + P.groups.length + ' group(s)' : '';
  const box = $('pending');
  if (!P.groups.length) return box.replaceChildren(el('p', { class: 'muted' }, S.loaded.pods ? 'no pending pods' : 'loading pods…'));
  box.replaceChildren(el('ul', { class: 'groups', id: 'pending-groups' }, ...P.groups.slice(0, 50).map((g) => {
    const eg = g.pods.slice(0, 3).map((p) => p.key).join(', ') + (g.pods.length > 3 ? ', …' : '');
    return el('li', { class: g.reasons === P.openGroup ? 'on' : '', 'data-reasons': g.reasons, 'data-count': g.pods.length,
      onclick: () => { P.openGroup = g.reasons; P.sig = ''; renderPending(); select(g.pods[0].key); } },
      el('span', { class: 'n' }, fmt(g.pods.length) + ' pod' + (g.pods.length === 1 ? '' : 's')),
      el('span', {}, el('span', { class: 'why' }, g.reasons), el('span', { class: 'eg' }, eg)));
  })), P.groups.length > 50 ? el('p', { class: 'muted' }, (P.groups.length - 50) + ' smaller groups not shown') : '');
}

function verdictOf(n) {
  return n.chosen ? 'chosen' : n.feasible ? 'feasible'
    : '✗ ' + (n.decisive ? n.decisive.plugin + ': ' + n.decisive.reasons.join(', ') : 'filtered');
}
let explainTable = null;
function renderExplain() {
  const box = $('explain'), ex = P.explain;
  if (S.has.explain === false) return box.replaceChildren(el('p', { class: 'muted' }, 'explain is a kubesim endpoint; this server does not have it'));
  if (!P.selected) return box.replaceChildren(el('p', { class: 'muted' }, 'pick a pending group, a pod in a table, or a pod on a node'));
  if (!ex) return box.replaceChildren(el('p', { class: 'muted', id: 'explain-head' }, 'explaining ' + P.selected + '…'));
  if (ex.error) return box.replaceChildren(el('p', { class: 'fiterror', id: 'explain-head' }, P.selected + ': ' + ex.error));
  const head = ex.chosen ? 'would be scheduled to ' + ex.chosen : 'fits no node: ' + (ex.fitError || ex.preFilter?.message || '');
  const counts = new Map();
  for (const n of ex.nodes) { const v = verdictOf(n); counts.set(v, (counts.get(v) || 0) + 1); }
  const scored = ex.nodes.some((n) => n.scores);
  const plugins = scored ? ex.scorePlugins : [];
  const rows = ex.nodes.map((n, i) => ({ key: n.name, i, n, rowCls: n.chosen ? 'chosen' : '' }));
  const tableBox = el('div', { id: 'explain-table' });
  box.replaceChildren(
    el('p', { id: 'explain-head' }, 'Pod ' + ex.pod + ' (profile ' + ex.profile + '): ', el('span', { class: ex.chosen ? '' : 'fiterror' }, head)),
    el('table', { class: 'verdicts', id: 'explain-verdicts' }, ...[...counts].sort((a, b) => b[1] - a[1]).map(([v, c]) =>
      el('tr', {}, el('td', { class: 'num' }, fmt(c)), el('td', { class: v.startsWith('✗') ? 'fiterror' : '' }, v)))),
    tableBox);
  const others = (n) => (n.filters || [])
    .filter((f) => f.result !== 'pass' && f.result !== 'skip' && f.result !== 'not run' && f.plugin !== n.decisive?.plugin)
    .map((f) => f.plugin + ': ' + (f.reasons || []).join(', ')).join('; ');
  explainTable = VTable(tableBox, [
    { name: 'NODE', cell: (r) => r.n.name, sort: (r) => r.i, width: 'minmax(120px, 1.5fr)' },
    ...plugins.map((s) => ({ name: s.name + ' (×' + s.weight + ')', num: true, width: 'minmax(60px, 1fr)',
      cell: (r) => { const c = (r.n.scores || []).find((x) => x.plugin === s.name); return c ? String(c.normalized) : ''; },
      sort: (r) => -(((r.n.scores || []).find((x) => x.plugin === s.name) || {}).normalized ?? -1) })),
    ...(scored ? [{ name: 'TOTAL', num: true, cell: (r) => r.n.total === undefined ? '' : String(r.n.total), sort: (r) => -(r.n.total ?? -1), width: '60px' }] : []),
    { name: 'VERDICT', cell: (r) => verdictOf(r.n), cls: (r) => r.n.feasible ? 'ok' : 'fail', width: 'minmax(200px, 3fr)' },
    { name: 'OTHER FAILING FILTERS', cell: (r) => others(r.n), cls: () => 'fail', width: 'minmax(120px, 2fr)' },
  ], (r) => pickNode(r.n.name), { height: 300 });
  explainTable.set(rows);
}

let explainSeq = 0;
async function explain() {
  const k = P.selected;
  if (!k || S.has.explain === false) return renderExplain();
  const seq = ++explainSeq;
  const i = k.indexOf('/');
  let ex;
  try {
    ex = await getJson('/kubesim/v1/explain?namespace=' + encodeURIComponent(k.slice(0, i)) + '&name=' + encodeURIComponent(k.slice(i + 1)));
    S.has.explain = true;
  } catch (e) {
    // kubesim's own 404 names the pod; any other 404 means the endpoint is not there
    if (e.code === 404 && e.body?.details?.kind === 'pods') ex = { error: e.message };
    else if (e.code === 404) S.has.explain = false;
    else ex = { error: e.message };
  }
  if (seq !== explainSeq) return;
  P.explain = ex;
  renderExplain();
}
function select(k) {
  P.selected = k || null;
  P.explain = null;
  history.replaceState(null, '', k ? '#pod=' + k : '#');
  renderExplain();
  $('explain-section').scrollIntoView({ block: 'nearest' });
  explain();
}
`;

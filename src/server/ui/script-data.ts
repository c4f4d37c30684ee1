/**
 * The page's data (runs in the browser; plain ES2020 in one classic script with the other
 * script-*.ts parts): lists nodes, pods and events in chunks (`limit`/`continue`, as kubectl pages
 * them) and follows their watch streams from the list's resourceVersion, relisting after a 410 or
 * a closed stream. Pods and nodes are asked for as metav1.Table with `includeObject=Object`, so the
 * tables show the cells the server's printers compute for kubectl; a server that answers a plain
 * list still works (a few cells are then filled in here). Each object is kept as a small record
 * (what the heatmap, tables and selectors read), not as the object itself, so 150,000 pods fit.
 *
 * Requests are summed as NodeResourcesFit counts them (upstream resource helpers: max(sum of
 * containers + restartable init containers, largest other init container) + overhead).
 */
export const DATA_SCRIPT = String.raw`
const S = {
  nodes: new Map(), pods: new Map(), usage: new Map(), podCols: null, nodeCols: null,
  watchEvents: 0, binds: 0, evictions: 0, loaded: { nodes: false, pods: false },
  dirty: { nodes: true, pods: true }, clock: null, clockAt: 0, has: {}, timings: {},
};
window.kubesimUi = S;
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== undefined && k !== null) e.append(k);
  return e;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

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
  for (const c of p.spec?.containers || []) add(sum, c.resources?.requests);
  for (const c of p.spec?.initContainers || []) if (c.restartPolicy === 'Always') add(sum, c.resources?.requests);
  for (const c of p.spec?.initContainers || []) {
    if (c.restartPolicy === 'Always') continue;
    sum.cpu = Math.max(sum.cpu, qty(c.resources?.requests?.cpu));
    sum.memory = Math.max(sum.memory, qty(c.resources?.requests?.memory));
  }
  add(sum, p.spec?.overhead);
  return sum;
}
const cpuText = (c) => (c < 1 ? Math.round(c * 1000) + 'm' : c >= 100 ? fmt(c) : (Math.round(c * 100) / 100) + '');
const memText = (b) => b >= 2 ** 40 ? (Math.round(b / 2 ** 40 * 10) / 10) + 'Ti'
  : b >= 2 ** 30 ? (Math.round(b / 2 ** 30 * 10) / 10) + 'Gi' : Math.round(b / 2 ** 20) + 'Mi';

function fitErrorOf(o) {
  const c = (o.status?.conditions || []).find((x) => x.type === 'PodScheduled' && x.status === 'False');
  return c ? (c.message || c.reason || '') : '';
}

/** A pod as the page keeps it: what the tables, selectors, heatmap and pending groups read. */
function podRecord(o, cells) {
  const md = o.metadata, sp = o.spec || {}, st = o.status || {};
  const r = podRequests(o);
  const phase = st.phase || 'Pending';
  return {
    key: md.namespace + '/' + md.name, ns: md.namespace, name: md.name, labels: md.labels || {},
    node: sp.nodeName || '', phase, cpu: r.cpu, mem: r.memory, created: Date.parse(md.creationTimestamp || '') || 0,
    deleting: !!md.deletionTimestamp, terminal: phase === 'Succeeded' || phase === 'Failed',
    fitError: fitErrorOf(o),
    fields: {
      'metadata.name': md.name, 'metadata.namespace': md.namespace, 'spec.nodeName': sp.nodeName || '',
      'spec.restartPolicy': sp.restartPolicy || '', 'spec.schedulerName': sp.schedulerName || '',
      'spec.serviceAccountName': sp.serviceAccountName || '', 'spec.hostNetwork': String(sp.hostNetwork ?? false),
      'status.phase': st.phase || '', 'status.podIP': st.podIP || '', 'status.nominatedNodeName': st.nominatedNodeName || '',
    },
    cells: cells || [md.name, '', st.reason || phase, '', '', st.podIP || '<none>', sp.nodeName || '<none>'],
  };
}

function nodeRecord(o, cells) {
  const md = o.metadata, st = o.status || {}, a = st.allocatable || st.capacity || {};
  const labels = md.labels || {};
  const ready = (st.conditions || []).find((c) => c.type === 'Ready');
  const taints = (o.spec?.taints || []).map((t) => ({ key: t.key, value: t.value || '', effect: t.effect }));
  return {
    key: md.name, name: md.name, labels, created: Date.parse(md.creationTimestamp || '') || 0,
    zone: labels['topology.kubernetes.io/zone'] || '(no zone)',
    group: labels['node.kubernetes.io/instance-type'] || labels['beta.kubernetes.io/instance-type'] || '(no instance type)',
    cpu: qty(a.cpu), mem: qty(a.memory), pods: qty(a.pods), ready: ready?.status === 'True',
    unschedulable: !!o.spec?.unschedulable, taints,
    // taints the scheduler would refuse for an ordinary pod (PreferNoSchedule only weighs a score)
    tainted: taints.some((t) => t.effect !== 'PreferNoSchedule' && !t.key.startsWith('node.kubernetes.io/')),
    conditions: (st.conditions || []).map((c) => ({ type: c.type, status: c.status, reason: c.reason || '', message: c.message || '', since: c.lastTransitionTime || '' })),
    fields: { 'metadata.name': md.name, 'spec.unschedulable': String(!!o.spec?.unschedulable) },
    cells: cells || [md.name, ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown', '', '', st.nodeInfo?.kubeletVersion || ''],
  };
}

// what each bound, unfinished pod adds to its node: kept per node name as pods come and go
function account(rec, sign) {
  if (!rec || !rec.node || rec.terminal) return;
  let u = S.usage.get(rec.node);
  if (!u) S.usage.set(rec.node, (u = { cpu: 0, mem: 0, pods: 0 }));
  u.cpu += sign * rec.cpu; u.mem += sign * rec.mem; u.pods += sign;
}
const NO_USE = { cpu: 0, mem: 0, pods: 0 };
// until every pod is listed, what the server's node summary counted (kubesim only)
const usageOf = (name) => (S.loaded.pods || !S.sumUsage ? S.usage : S.sumUsage).get(name) || NO_USE;
/** the nodes to draw: the list once complete, before that the summary's (when served) */
const nodesNow = () => (S.loaded.nodes || !S.sumNodes ? S.nodes : S.sumNodes);

/** GET /kubesim/v1/node-summary: the first screen in one small answer while the lists load. */
async function loadSummary() {
  try {
    const t0 = performance.now();
    const body = await getJson('/kubesim/v1/node-summary');
    const f = body.flags, nodes = new Map(), usage = new Map();
    for (const [name, zone, type, cpu, mem, pods, cu, mu, pu, flags] of body.nodes) {
      nodes.set(name, { key: name, name, labels: {}, created: 0, zone: zone || '(no zone)', group: type || '(no instance type)',
        cpu, mem, pods, ready: !(flags & f.notReady), unschedulable: !!(flags & f.cordoned), tainted: !!(flags & f.tainted),
        taints: [], conditions: [], fields: {}, cells: [name] });
      usage.set(name, { cpu: cu, mem: mu, pods: pu });
    }
    S.sumNodes = nodes; S.sumUsage = usage; S.has.summary = true;
    S.timings.summaryMs = performance.now() - t0;
    S.dirty.nodes = true; schedule();
  } catch (e) { S.has.summary = false; }
}

function putPod(o, cells) {
  const rec = podRecord(o, cells);
  const old = S.pods.get(rec.key);
  account(old, -1); account(rec, 1);
  if (old && !old.node && rec.node) S.binds++;
  S.pods.set(rec.key, rec);
}
function delPod(o) {
  const k = o.metadata.namespace + '/' + o.metadata.name;
  account(S.pods.get(k), -1);
  S.pods.delete(k);
}
const putNode = (o, cells) => S.nodes.set(o.metadata.name, nodeRecord(o, cells));
const delNode = (o) => S.nodes.delete(o.metadata.name);

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
async function getJson(path, accept) {
  const r = await fetch(path, { headers: { Accept: accept || 'application/json' } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(body.message || r.status + ' ' + r.statusText), { code: r.status, body });
  return body;
}

/** Rows of a Table, or the items of a plain list, as [object, cells | undefined]. */
function rowsOf(body, kind) {
  if (body.kind === 'Table') {
    if (body.columnDefinitions) S[kind + 'Cols'] = body.columnDefinitions;
    return body.rows.map((r) => [r.object, r.cells]);
  }
  return (body.items || []).map((o) => [o, undefined]);
}

const KINDS = {
  nodes: { path: '/api/v1/nodes', chunk: 2500, put: putNode, del: delNode, map: () => S.nodes, table: true },
  pods: { path: '/api/v1/pods', chunk: 5000, put: putPod, del: delPod, map: () => S.pods, table: true,
    clear: () => S.usage.clear() },
  events: { path: '/api/v1/events', chunk: 1, put: countEviction, del: () => {}, map: () => null, table: false },
};

// evictions as kubesim simulate counts them: the taint manager's and the kubelet's (node pressure)
const EVICTION_REASONS = new Set(['TaintManagerEviction', 'Evicted']);
function countEviction(o, _cells, type) {
  if (type === 'ADDED' && EVICTION_REASONS.has(o.reason)) S.evictions++;
}

async function listWatch(kind) {
  const k = KINDS[kind];
  const accept = k.table ? TABLE : 'application/json';
  const q = k.table ? 'includeObject=Object&' : '';
  for (;;) {
    try {
      // 1. list in chunks; the page draws as they arrive (events: one item, for the resourceVersion)
      let cont = '', rv;
      const map = k.map();
      if (map) map.clear();
      if (k.clear) k.clear();
      do {
        const body = await getJson(k.path + '?' + q + 'limit=' + k.chunk + (cont ? '&continue=' + encodeURIComponent(cont) : ''), accept);
        if (map) for (const [o, cells] of rowsOf(body, kind.slice(0, -1))) k.put(o, cells, 'LIST');
        rv = rv || body.metadata.resourceVersion;
        cont = kind === 'events' ? '' : body.metadata.continue || '';
        if (map) { S.dirty[kind] = true; schedule(); }
      } while (cont);
      if (kind !== 'events') { S.loaded[kind] = true; S.timings[kind + 'Loaded'] = performance.now(); S.dirty[kind] = true; schedule(); }
      // 2. watch from the list's resourceVersion
      const res = await fetch(k.path + '?' + q + 'watch=true&allowWatchBookmarks=true&resourceVersion=' + rv, { headers: { Accept: accept } });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '', expired = false;
      while (!expired) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          if (ev.type === 'ERROR') { expired = true; break; }
          if (ev.type === 'BOOKMARK') continue;
          S.watchEvents++;
          const [[o, cells]] = ev.object.kind === 'Table' ? rowsOf(ev.object, kind.slice(0, -1)) : [[ev.object, undefined]];
          if (ev.type === 'DELETED') k.del(o); else k.put(o, cells, ev.type);
          if (map) { S.dirty[kind] = true; schedule(); }
        }
      }
      if (expired) reader.cancel();
    } catch (e) {
      $('status').textContent = kind + ': ' + e.message + '; retrying';
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

// ---- selectors, evaluated here as the server evaluates ?labelSelector= and ?fieldSelector=
// upstream: apimachinery pkg/labels/selector.go (Parse) and pkg/fields/selector.go
const NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
function checkKey(k) {
  const i = k.lastIndexOf('/');
  const name = i >= 0 ? k.slice(i + 1) : k, prefix = i >= 0 ? k.slice(0, i) : '';
  if (!NAME_RE.test(name) || (i >= 0 && (!PREFIX_RE.test(prefix) || prefix.length > 253)))
    throw new Error('invalid label key "' + k + '"');
}
function checkValue(v) {
  if (v !== '' && !NAME_RE.test(v)) throw new Error('invalid label value: "' + v + '"');
}
/** Splits on commas outside parentheses. */
function splitTop(s) {
  const out = []; let depth = 0, cur = '';
  for (const ch of s) {
    if (ch === '(') depth++; else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) { out.push(cur); cur = ''; } else cur += ch;
  }
  out.push(cur);
  return out;
}
function parseLabelSelector(s) {
  const reqs = [];
  if (!s.trim()) return () => true;
  for (const part of splitTop(s)) {
    const t = part.trim();
    let m;
    if ((m = /^!\s*([^\s=!<>(),]+)$/.exec(t))) { checkKey(m[1]); reqs.push((l) => !(m[1] in l)); continue; }
    if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(t))) {
      const key = m[1], notin = m[2] === 'notin';
      checkKey(key);
      const vals = new Set(m[3].split(',').map((v) => v.trim()));
      if (m[3].trim() === '') throw new Error('for \'' + m[2] + '\' operator, values set can\'t be empty');
      for (const v of vals) checkValue(v);
      reqs.push(notin ? (l) => !(key in l) || !vals.has(l[key]) : (l) => key in l && vals.has(l[key]));
      continue;
    }
    if ((m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(t))) {
      const [, key, op, val] = m;
      checkKey(key);
      if (op === '>' || op === '<') {
        if (!/^[+-]?[0-9]+$/.test(val)) throw new Error('for \'gt\', \'lt\' operators, the value must be an integer');
        const n = Number(val);
        reqs.push((l) => key in l && /^[+-]?[0-9]+$/.test(l[key]) && (op === '>' ? Number(l[key]) > n : Number(l[key]) < n));
      } else {
        checkValue(val);
        reqs.push(op === '!=' ? (l) => l[key] !== val : (l) => key in l && l[key] === val);
      }
      continue;
    }
    if ((m = /^([^\s=!<>(),]+)$/.exec(t))) { checkKey(m[1]); reqs.push((l) => m[1] in l); continue; }
    throw new Error('unable to parse requirement: "' + t + '"');
  }
  return (labels) => { for (const r of reqs) if (!r(labels)) return false; return true; };
}
/** Field selector over a record's fields; an unknown field is an error as on the server. */
function parseFieldSelector(s, fields) {
  const reqs = [];
  if (!s.trim()) return () => true;
  const parts = []; let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) { cur += s[i] + s[++i]; continue; }
    if (s[i] === ',') { parts.push(cur); cur = ''; } else cur += s[i];
  }
  parts.push(cur);
  for (const p of parts) {
    const m = /^([^=!]+?)\s*(==|=|!=)(.*)$/.exec(p.trim());
    if (!m) throw new Error('invalid selector: \'' + p + '\'; can\'t understand \'' + p + '\'');
    const field = m[1].trim(), op = m[2], val = m[3].replace(/\\(.)/g, '$1');
    if (!fields.includes(field)) throw new Error('field label not supported: ' + field);
    reqs.push(op === '!=' ? (f) => f[field] !== val : (f) => f[field] === val);
  }
  return (f) => { for (const r of reqs) if (!r(f)) return false; return true; };
}
`;

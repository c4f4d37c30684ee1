#!/usr/bin/env node
/**
 * The dependency-direction check (docs/ARCHITECTURE.md, DESIGN.md "Dependency direction"): parses
 * every import in src/ (static, `export … from`, `import type`, dynamic `import()`) with the
 * TypeScript parser and fails on any import that runs against
 *
 *   cli → experiments → capacity, sim, server → controllers, scheduler, proxy, kubelet, autoscaler
 *       → client → api → store → util
 *   report (text tables, HTML, SVG): usable by every area above util; it imports util only
 *   src/index.ts (the library's namespaces): everything except cli
 *   bench/: the `kubesim bench` command's suites, imported by cli only
 *   test/: never imported from src
 *
 * Inside the scheduler, engine/ (NodeTable, kernels, compiled pod queries) is the bottom: it imports
 * no other scheduler folder.
 *
 * It also fails on any import circle between files of src/ (a imports b imports … a), type-only
 * imports included: a circle means two modules are one concern, or a shared type belongs in a
 * module below both (docs/ARCHITECTURE.md "Dependency direction").
 *
 * Areas on one level may import each other (the controllers read the scheduler's kernels, the
 * simulation runs the capacity planner); the report counts those edges. Violations that are known
 * and being worked on are listed in KNOWN below with a reason; an entry that no longer occurs
 * fails the check too, so the list only shrinks.
 *
 * Usage: node scripts/check-layers.mjs [--verbose] [--root DIR]   (exit 1 on a violation or a circle)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootArg = process.argv.indexOf('--root');
/** the repository (or, for the check's own test, another tree with a src/ folder) */
const root =
  rootArg > 0 ? resolve(process.argv[rootArg + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');

/** level of each area of src/ (higher imports lower) */
const LEVEL = {
  util: 0,
  store: 1,
  api: 2,
  client: 3,
  controllers: 4,
  scheduler: 4,
  proxy: 4,
  kubelet: 4,
  autoscaler: 4,
  capacity: 5,
  sim: 5,
  server: 5,
  experiments: 6,
  index: 7,
  cli: 8,
};

/** `from → to` pairs that break the rules today, each with why it is still there. */
const KNOWN = new Map([]);

function walk(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The area a repository path belongs to: `api`, `scheduler/engine`, `index`, `bench`, `test`, … */
function areaOf(path) {
  const parts = relative(root, path).split(sep);
  if (parts[0] !== 'src') return parts[0];
  if (parts.length === 2) return parts[1] === 'index.ts' ? 'index' : `(${parts[1]})`;
  if (parts[1] === 'scheduler' && parts.length > 3) return `scheduler/${parts[2]}`;
  return parts[1];
}

const top = (area) => area.split('/')[0];

/** Why `from` may not import `to`, or undefined when it may. */
function violation(from, to) {
  const f = top(from);
  const t = top(to);
  if (f === t) {
    if (from !== to && to.startsWith('scheduler/') && from === 'scheduler/engine')
      return 'scheduler/engine is the bottom of the scheduler';
    return undefined;
  }
  if (t === 'test') return 'src never imports test/';
  if (t === 'bench') return f === 'cli' ? undefined : 'only the CLI imports bench/';
  if (f === 'report') return t === 'util' ? undefined : 'report imports util only';
  if (t === 'report') return LEVEL[f] >= 1 ? undefined : 'util does not import report';
  if (!(f in LEVEL) || !(t in LEVEL)) return `unknown area (${!(f in LEVEL) ? f : t}): add it to LEVEL`;
  if (LEVEL[t] > LEVEL[f]) return `${t} is above ${f}`;
  return undefined;
}

/** Every module specifier of a file: import/export declarations and `import()` calls, with their lines. */
function importsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const add = (lit) =>
    out.push({ spec: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart()).line + 1 });
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      add(node.argument.literal); // `import('./x.js').T` in a type
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const edges = new Map(); // "from → to" → count
const bad = new Map(); // "from → to" → { reason, sites[] }
const fileImports = new Map(); // file → Set of the src files it imports
for (const file of walk(join(root, 'src'))) {
  const text = readFileSync(file, 'utf8');
  const from = areaOf(file);
  const targets = new Set();
  fileImports.set(file, targets);
  for (const { spec, line } of importsOf(file, text)) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    targets.add(target);
    const to = areaOf(target);
    if (to === from) continue;
    const key = `${from} → ${to}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
    const why = violation(from, to);
    if (why === undefined) continue;
    const site = `${relative(root, file)}:${line} imports ${spec}`;
    const entry = bad.get(key) ?? { reason: why, sites: [] };
    entry.sites.push(site);
    bad.set(key, entry);
  }
}

let failed = false;
const tops = new Map();
for (const [key, n] of edges) {
  const [f, t] = key.split(' → ');
  if (top(f) === top(t)) continue;
  const k = `${top(f)} → ${top(t)}`;
  tops.set(k, (tops.get(k) ?? 0) + n);
}
console.log(
  `dependency direction: ${tops.size} area pairs, ${[...tops.values()].reduce((a, b) => a + b, 0)} imports`,
);
if (verbose) for (const [k, n] of [...tops].sort()) console.log(`  ${k}  ${n}`);

for (const [key, { reason, sites }] of [...bad].sort()) {
  if (KNOWN.has(key)) {
    console.log(`known: ${key} (${reason}) — ${KNOWN.get(key)}`);
    for (const s of sites) console.log(`  ${s}`);
    continue;
  }
  failed = true;
  console.log(`upward: ${key}: ${reason}`);
  for (const s of sites) console.log(`  ${s}`);
}
for (const key of KNOWN.keys())
  if (!bad.has(key)) {
    failed = true;
    console.log(
      `stale: ${key} is listed in KNOWN (scripts/check-layers.mjs) but no longer occurs: remove it`,
    );
  }

/**
 * The import circles: strongly connected components of the file graph (Tarjan), each printed as
 * one concrete circle through it.
 */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let next = 0;
  // iterative, so a long chain of imports cannot overflow the call stack
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, [...graph.get(start)].filter((t) => graph.has(t)), 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, succ] = frame;
      if (frame[2] < succ.length) {
        const w = succ[frame[2]++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, [...graph.get(w)].filter((t) => graph.has(t)), 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) !== index.get(v)) continue;
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v).has(v)) out.push(scc);
    }
  }
  // one circle through each component: a shortest path back to its first file (breadth-first)
  return out.map((scc) => {
    const members = new Set(scc);
    const first = [...scc].sort()[0];
    const prev = new Map([[first, undefined]]);
    const queue = [first];
    let last;
    while (queue.length && last === undefined) {
      const v = queue.shift();
      for (const w of graph.get(v)) {
        if (!members.has(w)) continue;
        if (w === first) {
          last = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [];
    for (let v = last; v !== undefined; v = prev.get(v)) path.unshift(relative(root, v));
    return { files: scc.length, path: [...path, relative(root, first)] };
  });
}

const found = circles(fileImports);
for (const { files, path } of found) {
  failed = true;
  console.log(`circle (${files} files): ${path.join(' → ')}`);
}
console.log(
  failed
    ? 'FAIL'
    : `ok: no import runs upward; no import circle between the ${fileImports.size} files of src/`,
);
process.exit(failed ? 1 : 0);

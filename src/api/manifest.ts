/**
 * Loading Kubernetes manifests the way `kubectl apply -f` reads them: YAML (multi-document,
 * YAML 1.1 like sigs.k8s.io/yaml, merge keys), JSON (one object, an array, or a List), files,
 * directories (`.yaml`, `.yml`, `.json`; recursive on request, like `-R`) and `-` for stdin.
 * `kind: List` and typed lists (`PodList`, as the REST API returns them) are flattened into their
 * items; a list's `metadata.resourceVersion` is kept (what `kubectl get -o yaml` prints).
 *
 * Every object carries its source: file, document index, item index in a List, and the line
 * where the object starts, so messages read
 *   `pods.yaml:12: Pod "web-0": spec.containers[0].resources.requests[cpu]: Invalid value: "1.5x": …`
 * With `fieldPositions`, {@link LoadedObject.lineOf} maps a field path to the line of that field
 * (YAML, and JSON up to 16 MiB).
 *
 * Malformed input, oversized files (default limit 64 MiB, `maxFileBytes`), bytes that are not UTF-8
 * and nesting deeper than 100 levels (manifest-read.ts) are reported as a {@link ManifestError}
 * naming the file and line.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { LineCounter, isMap, isPair, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { LIMITS } from '../util/limits.js';
import {
  checkJsonDepth,
  ManifestError,
  oversized,
  parseYamlDocuments,
  readInputText,
  readStdinText,
} from './manifest-read.js';
import type { KubeObject } from './types.js';

export { ManifestError } from './manifest-read.js';

export const DEFAULT_MAX_FILE_BYTES = LIMITS.fileBytes;
const FIELD_POSITION_JSON_LIMIT = 16 * 1024 * 1024;
const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Where an object came from. */
export interface ManifestSource {
  file: string;
  /** 0-based YAML document index (0 for JSON) */
  document: number;
  /** index in a List's items, when the object came from a List */
  item?: number;
  /** 1-based line of the object's first field */
  line: number;
}

export interface LoadedObject {
  object: KubeObject;
  source: ManifestSource;
  /** the enclosing List's metadata.resourceVersion, if any */
  listResourceVersion?: string;
  /** the line of a field path (`spec.containers[0].image`), or the object's line if unknown */
  lineOf(path: string): number;
}

export interface LoadOptions {
  /** walk directories recursively (kubectl -R); default false */
  recursive?: boolean;
  /** per-file size limit in bytes; default 64 MiB */
  maxFileBytes?: number;
  /** keep YAML nodes so lineOf() resolves field paths (more memory); default false */
  fieldPositions?: boolean;
}

// ---------------------------------------------------------------- field paths → YAML lines

/** Split `spec.containers[0].resources.requests[cpu]` into segments. */
export function splitFieldPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  let i = 0;
  let cur = '';
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.') {
      if (cur) out.push(cur);
      cur = '';
      i++;
    } else if (c === '[') {
      if (cur) out.push(cur);
      cur = '';
      const end = path.indexOf(']', i);
      const inner = path.slice(i + 1, end < 0 ? path.length : end);
      out.push(/^[0-9]+$/.test(inner) ? Number(inner) : inner);
      i = end < 0 ? path.length : end + 1;
    } else {
      cur += c;
      i++;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The line of the deepest existing node along `segments` under `node`. */
function yamlLineOf(
  node: YamlNode | null | undefined,
  segments: (string | number)[],
  lc: LineCounter,
  fallback: number,
): number {
  let line = fallback;
  let cur: unknown = node;
  for (const seg of segments) {
    if (isMap(cur)) {
      const pair = cur.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return line;
      const keyNode = pair.key as YamlNode;
      if (keyNode.range) line = lc.linePos(keyNode.range[0]).line;
      cur = pair.value;
    } else if (isSeq(cur) && typeof seg === 'number') {
      const item = cur.items[seg] as YamlNode | undefined;
      if (!item) return line;
      if (item.range) line = lc.linePos(item.range[0]).line;
      cur = item;
    } else return line;
  }
  return line;
}

function lineOfNode(node: unknown, lc: LineCounter): number {
  const r = (node as YamlNode | undefined)?.range;
  return r ? lc.linePos(r[0]).line : 1;
}

// ---------------------------------------------------------------- lists

function isListObject(
  v: unknown,
): v is { kind: string; apiVersion?: string; items: unknown[]; metadata?: { resourceVersion?: string } } {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items);
}

/** Items of a typed list (PodList) may lack kind/apiVersion; fill them from the list. */
function fillItemType(item: unknown, list: { kind: string; apiVersion?: string }): unknown {
  if (!item || typeof item !== 'object' || Array.isArray(item) || list.kind === 'List') return item;
  const o = item as Record<string, unknown>;
  if (o.kind === undefined) o.kind = list.kind.slice(0, -'List'.length);
  if (o.apiVersion === undefined && list.apiVersion) o.apiVersion = list.apiVersion;
  return item;
}

function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

// ---------------------------------------------------------------- YAML

/**
 * YAML 1.1 as go-yaml v2 (behind sigs.k8s.io/yaml) resolves it when decoding into interface{}:
 * yes/no/on/off/y/n are booleans, 0755 is octal, 1_000 is 1000 — but timestamp-like scalars stay
 * strings ("for backward compatibility") and there are no base-60 numbers (1:30 is a string).
 */
const goYamlV2Tags = (tags: import('yaml').Tags): import('yaml').Tags =>
  tags.filter((t) => {
    const tag = t as { tag?: string; format?: string };
    return !(tag.tag === 'tag:yaml.org,2002:timestamp' || tag.format === 'TIME');
  });

function loadYaml(text: string, file: string, opts: LoadOptions): LoadedObject[] {
  const lc = new LineCounter();
  const docs = parseYamlDocuments(text, file, {
    lineCounter: lc,
    version: '1.1',
    merge: true,
    customTags: goYamlV2Tags,
  });
  if (!Array.isArray(docs)) {
    // EmptyStream
    return [];
  }
  const out: LoadedObject[] = [];
  docs.forEach((doc: Document.Parsed, d: number) => {
    const err = doc.errors[0];
    if (err) {
      // an error at the end of input (unterminated flow collection, …) points at the last content line
      const at = err.pos ? Math.min(err.pos[0], text.trimEnd().length - 1) : undefined;
      const pos = err.linePos?.[0] ?? (at !== undefined && at >= 0 ? lc.linePos(at) : undefined);
      throw new ManifestError(
        file,
        `error parsing YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
        pos?.line,
        pos?.col,
      );
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: LIMITS.aliases });
    } catch (e) {
      throw new ManifestError(
        file,
        `error converting YAML document ${d}: ${(e as Error).message}`,
        lineOfNode(doc.contents, lc),
      );
    }
    if (value === null || value === undefined) return; // empty document, as kubectl skips it
    const root = doc.contents;
    const rootLine = lineOfNode(root, lc);
    const keep = opts.fieldPositions === true;
    if (isListObject(value)) {
      const itemsNode = isMap(root)
        ? (root.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === 'items')?.value as
            | YamlNode
            | undefined)
        : undefined;
      value.items.forEach((item, i) => {
        const itemNode = isSeq(itemsNode) ? (itemsNode.items[i] as YamlNode | undefined) : undefined;
        const line = itemNode ? lineOfNode(itemNode, lc) : rootLine;
        out.push(
          mkLoaded(
            fillItemType(item, value),
            { file, document: d, item: i, line },
            file,
            value.metadata?.resourceVersion,
            keep ? (p) => yamlLineOf(itemNode, splitFieldPath(p), lc, line) : undefined,
          ),
        );
      });
      return;
    }
    out.push(
      mkLoaded(
        value,
        { file, document: d, line: rootLine },
        file,
        undefined,
        keep ? (p) => yamlLineOf(root, splitFieldPath(p), lc, rootLine) : undefined,
      ),
    );
  });
  return out;
}

function mkLoaded(
  value: unknown,
  source: ManifestSource,
  file: string,
  listRV: string | undefined,
  lineOf?: (p: string) => number,
): LoadedObject {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ManifestError(
      file,
      `document ${source.document}${source.item !== undefined ? ` item ${source.item}` : ''} is not an object (got ${describeType(value)})`,
      source.line,
    );
  }
  const obj = value as KubeObject;
  const loaded: LoadedObject = { object: obj, source, lineOf: lineOf ?? (() => source.line) };
  if (listRV !== undefined) loaded.listResourceVersion = String(listRV);
  return loaded;
}

// ---------------------------------------------------------------- JSON

/** Offsets → 1-based line/column through a precomputed table of line starts (binary search). */
function lineIndex(text: string): (offset: number) => { line: number; col: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  };
}

/**
 * Offsets where the JSON text's top-level value starts, where each element of a top-level array
 * starts, and where each element of a top-level object's `items` array starts.
 */
function jsonItemOffsets(text: string): { root: number; elements: number[] } {
  let i = 0;
  const n = text.length;
  const ws = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
  while (i < n && ws(text.charCodeAt(i))) i++;
  const root = i;
  const elements: number[] = [];
  // stack of containers: 'a' (array) / 'o' (object); itemsDepth marks the `items` array
  const stack: string[] = [];
  let itemsArrayDepth = -1;
  let lastKey: string | undefined;
  let expectValue = true;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (ws(c)) {
      i++;
      continue;
    }
    const depth = stack.length;
    const inArray = stack[depth - 1] === 'a';
    if (expectValue && inArray && (depth === 1 || (depth === 2 && itemsArrayDepth === 2))) {
      if (c !== 93 /* ] */) elements.push(i);
    }
    if (c === 34 /* " */) {
      let j = i + 1;
      while (j < n) {
        const cj = text.charCodeAt(j);
        if (cj === 92) j += 2;
        else if (cj === 34) break;
        else j++;
      }
      const str = text.slice(i + 1, j);
      i = j + 1;
      // a key if followed by ':'
      let k = i;
      while (k < n && ws(text.charCodeAt(k))) k++;
      if (text.charCodeAt(k) === 58 /* : */ && stack[depth - 1] === 'o') {
        lastKey = depth === 1 ? str : undefined;
        i = k + 1;
        expectValue = true;
        continue;
      }
      expectValue = false;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const isArr = c === 91;
      stack.push(isArr ? 'a' : 'o');
      if (isArr && stack.length === 2 && stack[0] === 'o' && lastKey === 'items') itemsArrayDepth = 2;
      expectValue = isArr;
      i++;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      if (stack.length === 2 && itemsArrayDepth === 2 && c === 93) itemsArrayDepth = -1;
      stack.pop();
      expectValue = false;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      expectValue = stack[stack.length - 1] === 'a';
      i++;
      continue;
    }
    // literal (number, true, false, null)
    while (i < n && !ws(text.charCodeAt(i)) && !',]}'.includes(text[i]!)) i++;
    expectValue = false;
  }
  return { root, elements };
}

function loadJson(text: string, file: string, opts: LoadOptions): LoadedObject[] {
  checkJsonDepth(text, file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const m = /position (\d+)/.exec(msg);
    const pos = m ? lineIndex(text)(Number(m[1])) : undefined;
    throw new ManifestError(
      file,
      `error parsing JSON: ${msg.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '')}`,
      pos?.line,
      pos?.col,
    );
  }
  const offsets = jsonItemOffsets(text);
  const lineCol = lineIndex(text);
  const rootLine = lineCol(offsets.root).line;
  // field positions through the YAML parser (JSON is YAML) for files small enough
  let yamlRoot: YamlNode | null | undefined;
  let lc: LineCounter | undefined;
  if (opts.fieldPositions && text.length <= FIELD_POSITION_JSON_LIMIT) {
    lc = new LineCounter();
    const docs = parseYamlDocuments(text, file, { lineCounter: lc });
    if (Array.isArray(docs) && docs[0] && docs[0].errors.length === 0) yamlRoot = docs[0].contents;
  }
  const elementLine = (i: number) =>
    offsets.elements[i] !== undefined ? lineCol(offsets.elements[i]!).line : rootLine;
  const resolver = (base: (string | number)[], line: number) =>
    yamlRoot && lc
      ? (p: string) => yamlLineOf(yamlRoot, [...base, ...splitFieldPath(p)], lc!, line)
      : undefined;

  const out: LoadedObject[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (isListObject(v)) {
        v.items.forEach((item, j) =>
          out.push(
            mkLoaded(
              fillItemType(item, v),
              { file, document: 0, item: j, line: elementLine(i) },
              file,
              v.metadata?.resourceVersion,
              resolver([i, 'items', j], elementLine(i)),
            ),
          ),
        );
      } else
        out.push(
          mkLoaded(
            v,
            { file, document: 0, item: i, line: elementLine(i) },
            file,
            undefined,
            resolver([i], elementLine(i)),
          ),
        );
    });
  } else if (isListObject(value)) {
    value.items.forEach((item, i) =>
      out.push(
        mkLoaded(
          fillItemType(item, value),
          { file, document: 0, item: i, line: elementLine(i) },
          file,
          value.metadata?.resourceVersion,
          resolver(['items', i], elementLine(i)),
        ),
      ),
    );
  } else if (value !== null) {
    out.push(mkLoaded(value, { file, document: 0, line: rootLine }, file, undefined, resolver([], rootLine)));
  }
  return out;
}

// ---------------------------------------------------------------- entry points

/** Parse manifest text (JSON when it starts with `{` or `[`, else YAML). */
export function parseManifests(text: string, file = '<input>', opts: LoadOptions = {}): LoadedObject[] {
  const max = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const size = Buffer.byteLength(text);
  if (size > max) throw oversized(file, size, max);
  const first = /\S/.exec(text);
  const isJson = first !== null && (first[0] === '{' || first[0] === '[');
  return isJson ? loadJson(text, file, opts) : loadYaml(text, file, opts);
}

/** The manifest files under `path` (a file, or a directory's .yaml/.yml/.json files, sorted). */
export async function manifestFiles(path: string, recursive = false): Promise<string[]> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ManifestError(path, code === 'ENOENT' ? 'no such file or directory' : (e as Error).message);
  }
  if (!st.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) {
      if (recursive) files.push(...(await manifestFiles(p, true)));
    } else if (MANIFEST_EXTENSIONS.has(extname(e.name).toLowerCase())) files.push(p);
  }
  return files;
}

/** Load one file (or `-` for stdin). @throws ManifestError */
export async function loadManifestFile(file: string, opts: LoadOptions = {}): Promise<LoadedObject[]> {
  const max = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (file === '-') return parseManifests(await readStdinText(max), '<stdin>', opts);
  return parseManifests(await readInputText(file, max), file, opts);
}

/**
 * Load files and directories (kubectl -f semantics) into objects with their sources.
 * @throws ManifestError on the first unreadable, malformed or oversized file
 */
export async function loadManifests(paths: string[], opts: LoadOptions = {}): Promise<LoadedObject[]> {
  const out: LoadedObject[] = [];
  for (const p of paths) {
    const files = p === '-' ? ['-'] : await manifestFiles(p, opts.recursive ?? false);
    for (const f of files) out.push(...(await loadManifestFile(f, opts)));
  }
  return out;
}

/**
 * When a kind is created in an install: PriorityClasses (a Pod naming one is refused at admission
 * without it) and Namespaces first, as Helm's InstallOrder begins (pkg/release/util/kind_sorter.go),
 * then CustomResourceDefinitions (Helm installs a chart's crds/ before its templates, so custom
 * resources find their kind), then everything else. Objects of a later stage may need those of an
 * earlier one to exist; objects of one stage do not need each other.
 */
export function creationStage(kind: string | undefined): number {
  if (kind === 'PriorityClass') return 0;
  if (kind === 'Namespace') return 1;
  if (kind === 'CustomResourceDefinition') return 2;
  return 3;
}

/** Objects in the order an install creates them: by {@link creationStage}, then in input order. */
export function inCreationOrder<T extends { object: KubeObject }>(objects: readonly T[]): T[] {
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => creationStage(a.o.object?.kind) - creationStage(b.o.object?.kind) || a.i - b.i)
    .map((x) => x.o);
}

/**
 * Strip what the server sets (resourceVersion, uid, creationTimestamp, generation, managedFields,
 * selfLink, deletion fields) so an object from a `kubectl get -o yaml` snapshot can be created.
 * Status is kept (Nodes keep it on create; for other kinds apply it with updateStatus). With
 * `keepUid` the uid stays, for a loader that maps it to the uid the object gets when created and
 * rewrites its dependents' ownerReferences (sim/owner-order.ts): a snapshot's pods stay owned by
 * its DaemonSets and ReplicaSets, which adopt them instead of making new ones.
 */
export function prepareForCreate<T extends KubeObject>(obj: T, opts: { keepUid?: boolean } = {}): T {
  const copy = structuredClone(obj);
  const m = (copy.metadata ?? {}) as Record<string, unknown>;
  for (const f of [
    'resourceVersion',
    ...(opts.keepUid ? [] : ['uid']),
    'creationTimestamp',
    'generation',
    'managedFields',
    'selfLink',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ]) {
    delete m[f];
  }
  copy.metadata = m as T['metadata'];
  return copy;
}

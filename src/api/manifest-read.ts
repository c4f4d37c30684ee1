/**
 * Reading input text safely, for every loader of manifests, snapshots and scenarios: a file larger
 * than the limit, bytes that are not UTF-8 (named by byte offset, never decoded to U+FFFD), and
 * YAML or JSON nested deeper than {@link LIMITS.depth} are each a {@link ManifestError} naming the
 * file — found before anything recursive (the YAML composer, JSON consumers, validation) sees the
 * value, so 10k-deep input is an error, not `Maximum call stack size exceeded`.
 */
import { readFile, stat } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import {
  Composer,
  type CST,
  type Document,
  type DocumentOptions,
  LineCounter,
  type ParseOptions,
  Parser,
  type SchemaOptions,
} from 'yaml';
import { invalidUtf8Offset } from '../store/keybytes.js';
import { jsonDepthExceeded, LIMITS } from '../util/limits.js';

/** A file that cannot be loaded: `file:line:col: message`. */
export class ManifestError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}${line ? `:${line}` : ''}${line && column ? `:${column}` : ''}: ${reason}`);
    this.name = 'ManifestError';
  }
}

function sizeText(b: number): string {
  return b < 1024
    ? `${b} bytes`
    : b < 1048576
      ? `${(b / 1024).toFixed(1)} KiB`
      : `${(b / 1048576).toFixed(1)} MiB`;
}

export function oversized(file: string, size: number, max: number): ManifestError {
  return new ManifestError(
    file,
    `file is ${sizeText(size)}, larger than the ${sizeText(max)} limit (raise it with maxFileBytes / --max-file-size)`,
  );
}

/** Bytes as UTF-8 text; invalid UTF-8 is an error naming the byte and its offset (and line). */
export function decodeUtf8(bytes: Buffer, file: string): string {
  const bad = invalidUtf8Offset(bytes);
  if (bad >= 0) {
    let line = 1;
    for (let i = bytes.indexOf(10); i >= 0 && i < bad; i = bytes.indexOf(10, i + 1)) line++;
    throw new ManifestError(
      file,
      `not UTF-8: byte 0x${bytes[bad]!.toString(16).padStart(2, '0')} at offset ${bad}`,
      line,
    );
  }
  return bytes.toString('utf8');
}

function unreadable(file: string, e: unknown): ManifestError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ManifestError(file, 'no such file or directory');
  if (code === 'EISDIR') return new ManifestError(file, 'is a directory');
  return new ManifestError(file, `cannot read: ${code ?? (e as Error).message}`);
}

/** A file's text, within `maxBytes` and UTF-8. @throws ManifestError */
export async function readInputText(file: string, maxBytes: number = LIMITS.fileBytes): Promise<string> {
  let bytes: Buffer;
  try {
    const st = await stat(file);
    if (st.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    if (st.size > maxBytes) throw oversized(file, st.size, maxBytes);
    bytes = await readFile(file);
  } catch (e) {
    if (e instanceof ManifestError) throw e;
    throw unreadable(file, e);
  }
  if (bytes.length > maxBytes) throw oversized(file, bytes.length, maxBytes);
  return decodeUtf8(bytes, file);
}

/** {@link readInputText}, synchronously (the scenario loader is synchronous). */
export function readInputTextSync(file: string, maxBytes: number = LIMITS.fileBytes): string {
  let bytes: Buffer;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    if (st.size > maxBytes) throw oversized(file, st.size, maxBytes);
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof ManifestError) throw e;
    throw unreadable(file, e);
  }
  if (bytes.length > maxBytes) throw oversized(file, bytes.length, maxBytes);
  return decodeUtf8(bytes, file);
}

/** Standard input's text, within `maxBytes` and UTF-8. */
export async function readStdinText(maxBytes: number = LIMITS.fileBytes): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c as string);
    size += b.length;
    if (size > maxBytes) throw oversized('<stdin>', size, maxBytes);
    chunks.push(b);
  }
  return decodeUtf8(Buffer.concat(chunks), '<stdin>');
}

/** Line and column (1-based) of an offset. */
function linePos(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/**
 * JSON text nested deeper than the limit, or holding a string longer than {@link LIMITS.stringBytes},
 * is an error naming the file and line.
 */
export function checkJsonDepth(text: string, file: string, max: number = LIMITS.depth): void {
  const at = jsonDepthExceeded(text, max, LIMITS.stringBytes);
  if (at >= 0) {
    const p = linePos(text, at);
    throw new ManifestError(
      file,
      text.charCodeAt(at) === 34 ? tooLongString(stringLength(text, at)) : `nested deeper than ${max} levels`,
      p.line,
      p.col,
    );
  }
}

function tooLongString(length: number): string {
  return `a string of ${sizeText(length)}, longer than the ${sizeText(LIMITS.stringBytes)} kube-apiserver accepts in one request (no object can hold it)`;
}

/** Length of the JSON string starting with the quote at `at` (escapes counted as written). */
function stringLength(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
  return i - at - 1;
}

/** The first scalar token longer than {@link LIMITS.stringBytes}, or undefined (no recursion). */
function longScalar(token: CST.Token): CST.Token | undefined {
  const stack: (CST.Token | null | undefined)[] = [token];
  while (stack.length) {
    const t = stack.pop();
    if (!t) continue;
    if (t.type === 'document') stack.push(t.value);
    else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      for (const it of t.items as { key?: CST.Token | null; value?: CST.Token }[])
        stack.push(it.key, it.value);
    } else if (
      (t.type === 'scalar' ||
        t.type === 'single-quoted-scalar' ||
        t.type === 'double-quoted-scalar' ||
        t.type === 'block-scalar') &&
      t.source.length > LIMITS.stringBytes
    )
      return t;
  }
  return undefined;
}

/** The offset of a collection nested deeper than `max` in a parsed YAML token, or -1 (no recursion). */
function yamlDepthExceeded(token: CST.Token, max: number): number {
  const stack: [CST.Token | undefined, number][] = [[token, 0]];
  while (stack.length) {
    // d: the collections around t
    const [t, d] = stack.pop()!;
    if (!t) continue;
    if (t.type === 'document') stack.push([t.value, d]);
    else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (d + 1 > max) return t.offset;
      for (const it of t.items as { key?: CST.Token | null; value?: CST.Token }[]) {
        stack.push([it.key ?? undefined, d + 1], [it.value, d + 1]);
      }
    }
  }
  return -1;
}

/**
 * `parseAllDocuments` of the `yaml` library with every document's nesting and string lengths
 * checked on the parser's CST (built without recursion, a few bytes per input byte) before the
 * composer, which recurses per level and needs tens of bytes per byte of a quoted string, sees it.
 * @throws ManifestError naming the file and line of the first node deeper than {@link LIMITS.depth}
 */
export function parseYamlDocuments(
  text: string,
  file: string,
  options: ParseOptions & DocumentOptions & SchemaOptions & { lineCounter?: LineCounter } = {},
  max: number = LIMITS.depth,
): Document.Parsed[] {
  const lc = options.lineCounter ?? new LineCounter();
  const parser = new Parser(lc.addNewLine);
  const composer = new Composer(options);
  function* checked(): Generator<CST.Token> {
    for (const token of parser.parse(text)) {
      const at = yamlDepthExceeded(token, max);
      if (at >= 0) {
        const p = lc.linePos(at);
        throw new ManifestError(file, `nested deeper than ${max} levels`, p.line, p.col);
      }
      const long = longScalar(token);
      if (long) {
        const p = lc.linePos((long as { offset: number }).offset);
        throw new ManifestError(
          file,
          tooLongString((long as { source: string }).source.length),
          p.line,
          p.col,
        );
      }
      yield token;
    }
  }
  return Array.from(composer.compose(checked()));
}

/**
 * One YAML (or JSON) document's value, through {@link parseYamlDocuments}' nesting and string
 * checks, for the option files that hold one document (--config, sweep results).
 * @throws ManifestError naming the file: too deep, too long a string, not YAML, more than one document
 */
export function parseYamlValue(text: string, file: string): unknown {
  const docs = parseYamlDocuments(text, file);
  const err = docs.flatMap((d) => d.errors)[0];
  if (err)
    throw new ManifestError(
      file,
      `invalid YAML: ${err.message.split('\n')[0]}`,
      err.linePos?.[0].line,
      err.linePos?.[0].col,
    );
  if (docs.length > 1) throw new ManifestError(file, `${docs.length} YAML documents, expected one`);
  return docs[0]?.toJS({ maxAliasCount: LIMITS.aliases }) ?? null;
}

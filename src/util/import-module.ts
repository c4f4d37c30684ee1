/**
 * Imports a user's module at run time — a plugin written in TypeScript or JavaScript — on plain
 * Node (no TypeScript loader, no build step on the user's side).
 *
 * .js/.mjs/.cjs are imported as they are. .ts/.mts/.cts are compiled with esbuild (loaded only
 * then): the file and the relative imports it makes are bundled into one ES module, type-only
 * imports disappear, and the result is imported from a data: URL. Because a data: URL cannot
 * resolve package names, each package import is resolved at compile time (as Node would, from the
 * plugin's folder) to an absolute file: URL; `kubesim` and `kubesim/…` resolve to the kubesim that
 * is running, so a plugin shares its classes and state. `import.meta.url` keeps the plugin file's URL.
 */
import { isBuiltin } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Message, Plugin } from 'esbuild';
import { packageRoot } from './paths.js';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);
/** marks a resolution this module asked esbuild for, so that its own hook lets it through */
const RESOLVING = Symbol('resolving');

/** A module that cannot be compiled or imported; the message names the file and, for syntax, line and column. */
export class ModuleImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModuleImportError';
  }
}

/** The module's namespace object (its exports). `path` must be absolute. */
export async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = TYPESCRIPT.has(extname(path)) ? await compiledUrl(path) : pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (e) {
    throw new ModuleImportError(`cannot import ${path}: ${(e as Error).message}`);
  }
}

async function compiledUrl(path: string): Promise<string> {
  const esbuild = await import('esbuild');
  let code: string;
  try {
    const out = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'inline',
      logLevel: 'silent',
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(path).href) },
      plugins: [packagesByUrl],
    });
    code = out.outputFiles[0].text;
  } catch (e) {
    const errors = (e as { errors?: Message[] }).errors;
    if (!errors?.length) throw e;
    throw new ModuleImportError(`cannot compile ${path}: ${errors.map(formatMessage).join('; ')}`);
  }
  return `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
}

function formatMessage(m: Message): string {
  // esbuild names files relative to its working directory, process.cwd() here
  return m.location
    ? `${resolve(m.location.file)}:${m.location.line}:${m.location.column + 1}: ${m.text}`
    : m.text;
}

/** Leaves package imports out of the bundle, as absolute file: URLs (see the module comment). */
const packagesByUrl: Plugin = {
  name: 'kubesim-packages-by-url',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === RESOLVING || isBuiltin(args.path)) return undefined;
      const self = args.path === 'kubesim' || args.path.startsWith('kubesim/');
      const r = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: self ? packageRoot() : args.resolveDir,
        importer: args.importer,
        pluginData: RESOLVING,
      });
      if (r.errors.length) return { errors: r.errors };
      return { path: pathToFileURL(r.path).href, external: true };
    });
  },
};

/**
 * The output convention every command follows:
 *
 *   -o, --output table|wide|json|yaml   (html where the command has a report; a few commands have
 *                                       one more format of their own, e.g. proxy render's rules)
 *   --out FILE                          write the output to FILE instead of stdout, atomically
 *
 * `-o` is always a format, never a file name. Tables are for people (units people use, wide adds
 * columns); json and yaml carry the same data in full, exact units, for scripts.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../util/atomic-write.js';
import { CliError } from './errors.js';

export type Format = 'table' | 'wide' | 'json' | 'yaml' | 'html' | 'markdown' | 'rules';

/** The formats every command has. */
export const BASE_FORMATS: readonly Format[] = ['table', 'wide', 'json', 'yaml'];

export interface OutputFlags {
  output: Format;
  out?: string;
}

/** Adds -o/--output and --out to a command. `formats[0]` is the default unless given. */
export function addOutputOptions(
  cmd: Command,
  formats: readonly Format[] = BASE_FORMATS,
  defaultFormat: Format = formats[0],
): Command {
  return cmd
    .addOption(
      new Option('-o, --output <format>', `output format: ${formats.join(' | ')}`)
        .default(defaultFormat)
        .argParser((v: string) => {
          if ((formats as readonly string[]).includes(v)) return v;
          const hint = /[./\\]/.test(v) ? `; -o is a format, to write a file use --out ${v}` : '';
          throw new InvalidArgumentError(`expected ${formats.join(', ')}${hint}.`);
        }),
    )
    .option('--out <file>', 'write the output to FILE instead of stdout (replaced atomically)');
}

/** json or yaml text of a value (the structured formats carry the full data). */
export function structured(format: 'json' | 'yaml', value: unknown): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export function isStructured(format: Format): format is 'json' | 'yaml' {
  return format === 'json' || format === 'yaml';
}

/** Output written piece by piece: `commit` ends it (--out: renamed into place), `abort` drops it. */
export interface ChunkWriter {
  write(chunk: Uint8Array): void;
  commit(): void;
  abort(): void;
}

/**
 * Opens --out (a temporary file beside it, renamed on commit: replaced atomically, as emit) or
 * stdout for output written as it is produced (a streamed ruleset).
 */
export function openOutput(o: { out?: string }): ChunkWriter {
  if (!o.out) return { write: (c) => void process.stdout.write(c), commit() {}, abort() {} };
  const out = o.out;
  const tmp = join(dirname(out), `.${basename(out)}.${process.pid}.tmp`);
  const fail = (e: unknown) => {
    rmSync(tmp, { force: true });
    return new CliError(`--out ${out}: cannot write: ${(e as Error).message}`);
  };
  let fd: number;
  try {
    fd = openSync(tmp, 'w');
  } catch (e) {
    throw fail(e);
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(c) {
      try {
        writeSync(fd, c);
      } catch (e) {
        close();
        throw fail(e);
      }
    },
    commit() {
      try {
        close();
        renameSync(tmp, out);
      } catch (e) {
        throw fail(e);
      }
    },
    abort() {
      close();
      rmSync(tmp, { force: true });
    },
  };
}

/**
 * Writes byte chunks to --out (atomically, as emit) or stdout, without joining them: a large
 * ruleset may be longer than the longest string V8 can build.
 */
export function emitChunks(o: { out?: string }, chunks: Iterable<Uint8Array>): void {
  const w = openOutput(o);
  for (const c of chunks) w.write(c);
  w.commit();
}

/** Writes the command's output: to --out (atomically) when given, else to stdout. */
export function emit(o: { out?: string }, text: string): void {
  if (!o.out) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileAtomic(o.out, text);
  } catch (e) {
    throw new CliError(`--out ${o.out}: cannot write: ${(e as Error).message}`);
  }
}

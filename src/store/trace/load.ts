/**
 * Reading a trace (or an op list to record) from a file, with every failure a
 * {@link TraceFormatError} that names the file: unreadable, larger than {@link MAX_TRACE_BYTES},
 * not UTF-8 (with the byte offset), not JSON, or malformed (validate.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { invalidUtf8Offset } from '../keybytes.js';
import { type GoldenTrace, TraceFormatError } from './format.js';
import { parseTrace } from './validate.js';

/** Largest trace file read, in bytes (64 MiB). */
export const MAX_TRACE_BYTES = 64 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8');

/** The parsed JSON of a trace-like file. */
export function readTraceJson(file: string): unknown {
  let bytes: Buffer;
  try {
    const size = statSync(file).size;
    if (size > MAX_TRACE_BYTES)
      throw new TraceFormatError(
        `${file}: ${size} bytes; the largest trace read is ${MAX_TRACE_BYTES} bytes (64 MiB)`,
      );
    bytes = readFileSync(file);
  } catch (err) {
    if (err instanceof TraceFormatError) throw err;
    throw new TraceFormatError(`cannot read trace ${file}: ${(err as Error).message}`);
  }
  const bad = invalidUtf8Offset(bytes);
  if (bad >= 0)
    throw new TraceFormatError(`${file}: not UTF-8: byte 0x${bytes[bad].toString(16)} at offset ${bad}`);
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (err) {
    throw new TraceFormatError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
}

/** Read and validate a golden trace file. */
export function loadTrace(file: string): GoldenTrace {
  return parseTrace(readTraceJson(file), file);
}

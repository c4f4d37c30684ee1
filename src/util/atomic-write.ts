/**
 * Writing a file so that nobody ever sees it half-written: the data goes to a temporary file
 * beside the target (same directory, so the same file system), which is then renamed over the
 * target; rename replaces it in one step. A process killed while writing leaves the previous file
 * (or none) and at most a hidden `.<name>.<pid>.tmp` beside it, never a truncated target.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Write `data` to `path` atomically (temp file + rename). Throws what writeFileSync/renameSync throw. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

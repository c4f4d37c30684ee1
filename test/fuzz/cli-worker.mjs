/**
 * Runs kubesim's CLI entry point (dist/src/cli/index.js main(argv)) in this worker thread, once per
 * message, and answers with the exit code and what it wrote to stdout and stderr. KUBESIM_DEBUG is
 * set, so an error the CLI did not expect prints its stack: that is how the fuzz suite tells an
 * internal error (TypeError, RangeError, …) from a clear one. Loaded modules (and compiled WASM)
 * stay cached between runs.
 */
import { parentPort } from 'node:worker_threads';

process.env.KUBESIM_DEBUG = '1';
const { main } = await import(new URL('../../dist/src/cli/index.js', import.meta.url).href);
const out = { stdout: '', stderr: '' };
const cap = (which) => (chunk, enc, cb) => {
  out[which] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  if (typeof enc === 'function') enc();
  else if (typeof cb === 'function') cb();
  return true;
};
process.stdout.write = cap('stdout');
process.stderr.write = cap('stderr');

parentPort.on('message', async (args) => {
  out.stdout = '';
  out.stderr = '';
  process.exitCode = undefined;
  let code;
  try {
    code = await main(['node', 'kubesim', ...args]);
  } catch (e) {
    code = -1;
    out.stderr += `thrown out of main: ${e?.stack ?? e}`;
  }
  process.exitCode = undefined;
  parentPort.postMessage({ code, stdout: out.stdout.slice(0, 4000), stderr: out.stderr.slice(0, 8000) });
});
parentPort.postMessage('ready');

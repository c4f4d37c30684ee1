// Runs one fuzz case at a time for test/store/trace-fuzz.test.ts, in a worker thread so that the
// test can stop a case that hangs: load or parse the trace the way `kubesim store replay` does,
// replay it on the in-memory store if it is accepted, and report the outcome.
import { parentPort } from 'node:worker_threads';

const store = await import(new URL('../../dist/src/store/index.js', import.meta.url).href);

parentPort.on('message', async (c) => {
  let outcome;
  try {
    const trace = c.file ? store.loadTrace(c.file) : store.parseTrace(JSON.parse(c.json), 'fuzz.json');
    await store.replayOnMemory(trace);
    outcome = { outcome: 'accepted' };
  } catch (e) {
    outcome =
      e instanceof store.TraceFormatError
        ? { outcome: 'rejected', message: e.message }
        : { outcome: 'internal', message: String(e?.stack ?? e) };
  }
  parentPort.postMessage({ i: c.i, ...outcome });
});
parentPort.postMessage({ ready: true });

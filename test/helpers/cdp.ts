// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
// messages separated by NUL bytes on file descriptors 3 and 4), so a test can load a live page,
// let it run in real time, read its DOM and take screenshots — what a one-shot --dump-dom cannot.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { chromiumFlags, chromiumPath } from './chromium.js';

export interface Browser {
  /** evaluates an expression in the page; resolves with its (JSON) value */
  evaluate<T>(expression: string): Promise<T>;
  /** polls an expression until it is truthy; resolves with its value */
  waitFor<T>(expression: string, what: string, ms?: number): Promise<T>;
  screenshot(png: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPage(url: string, width = 1200, height = 1100): Promise<Browser> {
  const bin = chromiumPath();
  if (!bin) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'kubesim-cdp-'));
  const child: ChildProcess = spawn(
    bin,
    [...chromiumFlags(profile), '--remote-debugging-pipe', 'about:blank'],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  const toChrome = child.stdio[3] as Writable;
  const fromChrome = child.stdio[4] as Readable;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let buf = '';
  fromChrome.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      buf = buf.slice(i + 1);
      const w = msg.id === undefined ? undefined : waiting.get(msg.id);
      if (!w) continue;
      waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    }
  });
  const send = <T>(method: string, params: object = {}, sessionId?: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      toChrome.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });

  const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', {
    targetId,
    flatten: true,
  });
  await send(
    'Emulation.setDeviceMetricsOverride',
    { width, height, deviceScaleFactor: 1, mobile: false },
    sessionId,
  );
  await send('Page.enable', {}, sessionId);
  await send('Page.navigate', { url }, sessionId);

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await send<{ result: { value?: T }; exceptionDetails?: { text: string } }>(
      'Runtime.evaluate',
      { expression, returnByValue: true },
      sessionId,
    );
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
    return r.result.value as T;
  };
  return {
    evaluate,
    waitFor: async <T>(expression: string, what: string, ms = 30_000): Promise<T> => {
      const end = Date.now() + ms;
      for (;;) {
        const v = await evaluate<T>(expression).catch(() => undefined);
        if (v) return v;
        if (Date.now() > end) throw new Error(`the page never showed ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    screenshot: async (png) => {
      const { data } = await send<{ data: string }>('Page.captureScreenshot', { format: 'png' }, sessionId);
      writeFileSync(png, Buffer.from(data, 'base64'));
    },
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      await send('Browser.close').catch(() => {});
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

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
  /** a real mouse event (Input.dispatchMouseEvent) at page coordinates */
  mouse(type: 'mouseMoved' | 'mousePressed' | 'mouseReleased', x: number, y: number): Promise<void>;
  /** scrolls the first element matching the selector into view and clicks its centre */
  click(selector: string): Promise<void>;
  /** types text into the focused element, as a keyboard would insert it */
  type(text: string): Promise<void>;
  /** presses and releases one key (e.g. 'Enter') */
  press(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens url in a fresh headless Chromium. With `notFound`, every request whose URL it accepts is
 * answered 404 by the browser itself (Fetch domain), as a server without that path would.
 */
export async function openPage(
  url: string,
  width = 1200,
  height = 1100,
  notFound?: (url: string) => boolean,
): Promise<Browser> {
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
        method?: string;
        params?: { requestId: string; request: { url: string } };
        sessionId?: string;
      };
      buf = buf.slice(i + 1);
      if (msg.method === 'Fetch.requestPaused') paused(msg.params!, msg.sessionId!);
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

  const paused = (p: { requestId: string; request: { url: string } }, session: string) => {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
    });
    void (
      notFound?.(p.request.url)
        ? send(
            'Fetch.fulfillRequest',
            {
              requestId: p.requestId,
              responseCode: 404,
              responseHeaders: [{ name: 'Content-Type', value: 'application/json' }],
              body: Buffer.from(body).toString('base64'),
            },
            session,
          )
        : send('Fetch.continueRequest', { requestId: p.requestId }, session)
    ).catch(() => {});
  };
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
  if (notFound) await send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }, sessionId);
  await send('Page.navigate', { url }, sessionId);

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await send<{ result: { value?: T }; exceptionDetails?: { text: string } }>(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      sessionId,
    );
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
    return r.result.value as T;
  };
  return {
    evaluate,
    // the deadline is a hang guard, not a speed check (ui-scale.test.ts prints the page's timings):
    // the wait ends as soon as the page shows it; at a load average of 27 a click took over 30 s
    waitFor: async <T>(expression: string, what: string, ms = 120_000): Promise<T> => {
      const end = Date.now() + ms;
      for (;;) {
        const v = await evaluate<T>(expression).catch(() => undefined);
        if (v) return v;
        if (Date.now() > end) throw new Error(`the page never showed ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    mouse: async (type, x, y) => {
      await send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 }, sessionId);
    },
    click: async (selector) => {
      const at = await evaluate<{ x: number; y: number } | null>(
        `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return null;
          e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect();
          return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`,
      );
      if (!at) throw new Error(`no element matches ${selector}`);
      for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
        await send('Input.dispatchMouseEvent', { type, ...at, button: 'left', clickCount: 1 }, sessionId);
    },
    type: async (text) => {
      await send('Input.insertText', { text }, sessionId);
    },
    press: async (key) => {
      for (const type of ['keyDown', 'keyUp'])
        await send(
          'Input.dispatchKeyEvent',
          { type, key, code: key, windowsVirtualKeyCode: key === 'Enter' ? 13 : 0 },
          sessionId,
        );
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

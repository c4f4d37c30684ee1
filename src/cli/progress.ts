/**
 * Progress on stderr for work that may take more than a couple of seconds: a redrawn line with a
 * bar and an ETA on a terminal, plain lines (each tenth of the way, at most one a second) when
 * stderr is a pipe or a CI log. Nothing is shown for work that ends within two seconds.
 * Never writes to stdout, which carries the result. `--no-progress` turns it off.
 */

export interface Progress {
  /** `done` of `total` units (tasks, replicas, virtual ms …); `detail` replaces the counter text */
  update(done: number, total: number, detail?: string): void;
  /** clears the line on a terminal; ends with one summary line when anything was shown */
  finish(): void;
}

const QUIET_MS = 2000;

/** "1m05s", "12s" */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

const NONE: Progress = { update() {}, finish() {} };

export function progress(
  label: string,
  enabled = true,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!enabled) return NONE;
  const tty = !!stream.isTTY;
  const t0 = performance.now();
  let shown = false;
  let lastDraw = 0;
  let lastTenth = -1;
  let last = '';
  return {
    update(done, total, detail) {
      const now = performance.now();
      const elapsed = now - t0;
      if (elapsed < QUIET_MS) return;
      const frac = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
      const eta = frac > 0 && frac < 1 ? `, ETA ${duration((elapsed * (1 - frac)) / frac)}` : '';
      const what = detail ?? `${done}/${total}`;
      if (tty) {
        if (now - lastDraw < 100 && frac < 1) return;
        lastDraw = now;
        const w = 24;
        const n = Math.round(frac * w);
        last = `${label} [${'#'.repeat(n)}${'.'.repeat(w - n)}] ${String(Math.round(frac * 100)).padStart(3)}% ${what}, ${duration(elapsed)}${eta}`;
        stream.write(`\r\x1b[K${last}`);
        shown = true;
      } else {
        const tenth = Math.floor(frac * 10);
        if (tenth === lastTenth || now - lastDraw < 1000) return;
        lastTenth = tenth;
        lastDraw = now;
        stream.write(`${label}: ${Math.round(frac * 100)}% ${what}, ${duration(elapsed)}${eta}\n`);
        shown = true;
      }
    },
    finish() {
      if (!shown) return;
      const took = duration(performance.now() - t0);
      stream.write(tty ? `\r\x1b[K${label}: done in ${took}\n` : `${label}: done in ${took}\n`);
    },
  };
}

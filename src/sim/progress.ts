/**
 * Progress on stderr for long simulations: a redrawn bar on a TTY, plain lines every 10 % otherwise
 * (CI logs, pipes). Never writes to stdout, which carries the result.
 */
export function progressReporter(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
): { update(doneMs: number, totalMs: number): void; finish(): void } {
  const tty = !!stream.isTTY;
  const t0 = performance.now();
  let lastDecile = -1;
  let lastDraw = 0;
  const fmt = (ms: number) => {
    const s = Math.round(ms / 1000);
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  };
  return {
    update(doneMs, totalMs) {
      const frac = totalMs > 0 ? Math.min(1, doneMs / totalMs) : 1;
      const wall = (performance.now() - t0) / 1000;
      if (tty) {
        const now = performance.now();
        if (now - lastDraw < 100 && frac < 1) return;
        lastDraw = now;
        const w = 30,
          n = Math.round(frac * w);
        stream.write(
          `\r${label} [${'#'.repeat(n)}${'.'.repeat(w - n)}] ${String(Math.round(frac * 100)).padStart(3)}%  ${fmt(doneMs)}/${fmt(totalMs)} virtual, ${wall.toFixed(1)}s wall `,
        );
      } else {
        const d = Math.floor(frac * 10);
        if (d === lastDecile) return;
        lastDecile = d;
        stream.write(
          `${label}: ${d * 10}% (${fmt(doneMs)} of ${fmt(totalMs)} virtual, ${wall.toFixed(1)}s wall)\n`,
        );
      }
    },
    finish() {
      if (tty) stream.write('\n');
    },
  };
}

/**
 * A component promise rejected with nobody listening (a bug: every timer-driven path is meant to
 * catch its own failures). In the CLI, report it as one line and exit instead of Node's stack dump.
 */
export function failCleanlyOnStrayRejections(): void {
  process.once('unhandledRejection', (err) => {
    process.stderr.write(
      `\nkubesim: internal error during the simulation: ${(err as Error)?.message ?? String(err)}\n`,
    );
    if (process.env.KUBESIM_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
    process.exit(70);
  });
}

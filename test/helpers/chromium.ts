import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's chromium binary, or undefined when it is not installed. */
export function chromiumPath(): string | undefined {
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  return undefined;
}

/**
 * Flags for a headless Chromium on this closed network as root: no sandbox, no GPU, and no
 * background networking (otherwise it keeps trying to reach Google's hosts).
 */
function flags(profile: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--user-data-dir=${profile}`,
  ];
}

/** Loads a local HTML file in headless Chromium and returns the DOM after rendering. */
export function chromiumDumpDom(htmlFile: string): string {
  const bin = chromiumPath();
  if (!bin) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'kubesim-chromium-'));
  try {
    return execFileSync(bin, [...flags(profile), '--dump-dom', `file://${htmlFile}`], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Screenshots a local HTML file to a PNG; returns true when the PNG was written. */
export function chromiumScreenshot(htmlFile: string, png: string, size = '1200,1600'): boolean {
  const bin = chromiumPath();
  if (!bin) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'kubesim-chromium-'));
  try {
    spawnSync(
      bin,
      [...flags(profile), `--screenshot=${png}`, `--window-size=${size}`, `file://${htmlFile}`],
      { timeout: 60_000, stdio: 'ignore' },
    );
    return existsSync(png);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

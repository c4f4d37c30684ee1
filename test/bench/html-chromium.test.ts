import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSuite, type BenchSuite } from '../../bench/harness.js';
import { renderHtml } from '../../bench/html.js';
import { chromiumPath, chromiumDumpDom, chromiumScreenshot } from '../helpers/chromium.js';

// CI installs Debian's chromium; locally the test skips visibly when it is missing.
const bin = chromiumPath();
const requireIt = process.env.KUBESIM_REQUIRE_CHROMIUM === '1';

const suite: BenchSuite = {
  name: 'render',
  description: 'two modes over three sizes',
  sizeUnit: 'nodes',
  defaultSizes: [100, 1000, 10000],
  quickSizes: [100, 1000, 10000],
  async run(opts, rec) {
    for (const n of opts.sizes ?? this.quickSizes) {
      for (const mode of ['js', 'wasm']) {
        let x = 0;
        await rec.measure(
          'evaluate',
          () => {
            for (let i = 0; i < n / (mode === 'js' ? 1 : 4); i++) x += i;
          },
          { mode, size: n, units: n, unit: 'nodes', timeMs: 20 },
        );
      }
    }
  },
};

describe.skipIf(!bin && !requireIt)(
  `bench HTML report in headless Chromium${bin ? '' : ' (skipped: chromium not installed)'}`,
  () => {
    it('renders the charts and the table', async () => {
      const rep = await runSuite(suite, { quick: true, timeMs: 20, seed: 1, args: {}, progress: () => {} });
      const dir = mkdtempSync(join(tmpdir(), 'kubesim-html-'));
      try {
        const file = join(dir, 'report.html');
        writeFileSync(file, renderHtml([rep], 'kubesim bench render'));
        const dom = chromiumDumpDom(file);
        // the browser parsed the inline SVG: one chart with a line and a point per (mode, size)
        expect((dom.match(/<svg/g) ?? []).length).toBe(1);
        expect((dom.match(/<polyline/g) ?? []).length).toBe(2);
        expect((dom.match(/<circle class="(point|noisy)"/g) ?? []).length).toBe(6);
        expect(dom).toContain('Fitted growth');
        const png = join(dir, 'report.png');
        expect(chromiumScreenshot(file, png)).toBe(true);
        const head = readFileSync(png).subarray(0, 8);
        expect(head.toString('hex')).toBe('89504e470d0a1a0a');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

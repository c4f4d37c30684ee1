import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { compact, histogram, lineChart, ticks } from '../../src/report/svg.js';
import { renderPage } from '../../src/report/html.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { simulate } from '../../src/sim/simulation.js';
import { formatSummary, renderReport } from '../../src/sim/report.js';

describe('report building blocks', () => {
  it('ticks are 1-2-5 steps covering the range; compact numbers', () => {
    expect(ticks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(ticks(0, 7, 5)).toEqual([0, 2, 4, 6]);
    expect([compact(1234), compact(15_000), compact(2_500_000), compact(0.25)]).toEqual([
      '1.2k',
      '15k',
      '2.5M',
      '0.25',
    ]);
  });
  it('charts are standalone SVG with escaped labels', () => {
    const svg = lineChart(
      [
        {
          name: 'a<b',
          points: [
            [0, 1],
            [10, 5],
          ],
        },
      ],
      { title: 'T & U', markers: [{ x: 5, label: 'node "down"' }] },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('T &amp; U');
    expect(svg).toContain('a&lt;b');
    expect(svg).toContain('node &quot;down&quot;');
    expect(svg).toMatch(/<path d="M[\d.]+,[\d.]+L/);
    const h = histogram([1, 1, 2, 3, 3, 3], { title: 'h', bins: 3 });
    expect((h.match(/<rect /g) ?? []).length).toBe(3);
    const page = renderPage({
      title: '<x>',
      sections: [{ title: 's', blocks: [{ kind: 'table', headers: ['a'], rows: [[1], ['<b>']] }] }],
    });
    expect(page).toContain('&lt;x&gt;');
    expect(page).not.toContain('<script');
  });
  it('a simulation renders to a summary and a self-contained HTML page', async () => {
    const r = await simulate(
      loadScenario(join(__dirname, '../../examples/scenarios/pending-unschedulable.yaml')),
    );
    const text = formatSummary(r);
    expect(text).toContain('Scenario pending-unschedulable: 3 nodes');
    expect(text).toContain('apply 1 object(s)');
    const html = renderReport(r, 'kubesim simulate x.yaml');
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('FailedScheduling');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });
});

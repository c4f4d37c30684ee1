/**
 * Presenting a simulation: a text summary (the CLI's table output), `kubectl get events`-style
 * rows, and the self-contained HTML report with SVG charts (src/report).
 */
import { table } from '../report/table.js';
import { type Page, renderPage } from '../report/html.js';
import { compact, histogram, lineChart } from '../report/svg.js';
import { clockTime } from '../report/units.js';
import type { SimulationResult } from './result.js';
import type { Timing } from './timing.js';
import { autoscalerSection, autoscalerText } from '../autoscaler/autoscaler-report.js';

const secs = (ms: number) =>
  Number.isFinite(ms) ? (ms >= 10_000 ? `${(ms / 1000).toFixed(0)}s` : `${(ms / 1000).toFixed(2)}s`) : '-';

/** The human summary printed by `kubesim simulate` / `kubesim demo`; wide lists every pending reason. */
export function formatSummary(r: SimulationResult, opts: { wide?: boolean } = {}): string {
  const out: string[] = [];
  out.push(
    `Scenario ${r.scenario}: ${r.nodes} nodes, ${clockTime(r.durationS)} simulated in ${(r.wallMs / 1000).toFixed(1)}s (${r.simSecondsPerWallSecond}× real time), seed ${r.seed}`,
  );
  out.push(`Scheduler: ${r.scheduler}`);
  out.push('');
  out.push(
    table(
      ['METRIC', 'VALUE'],
      [
        ['pods created / scheduled / ready', `${r.pods.created} / ${r.pods.scheduled} / ${r.pods.ready}`],
        ['pods running / pending at end', `${r.pods.runningAtEnd} / ${r.pods.pendingAtEnd}`],
        [
          'pod start-up latency p50 / p90 / p99',
          `${secs(r.startupLatencyMs.p50)} / ${secs(r.startupLatencyMs.p90)} / ${secs(r.startupLatencyMs.p99)}`,
        ],
        [
          'scheduling latency p50 / p99',
          `${secs(r.schedulingLatencyMs.p50)} / ${secs(r.schedulingLatencyMs.p99)}`,
        ],
        [
          'scheduling throughput peak / mean while busy',
          `${r.schedulingThroughput.peakPodsPerSecond} / ${r.schedulingThroughput.meanPodsPerSecondWhileBusy} pods/s`,
        ],
        [
          'API requests / 429 TooManyRequests / retries',
          `${r.api.requests} / ${r.api.tooManyRequests} / ${r.api.retries}`,
        ],
        [
          'client-side throttled requests / total wait',
          `${r.api.clientThrottled} / ${clockTime(r.api.clientThrottledWaitS)}`,
        ],
        ['peak in-flight mutating / read-only', `${r.api.peakMutatingInflight} / ${r.api.peakInflight}`],
        ['API call latency p50 / p99', `${r.api.latencyP50Ms}ms / ${r.api.latencyP99Ms}ms`],
        [
          'nodes marked NotReady / NoExecute-tainted',
          `${r.nodeLifecycle.markedUnknown} / ${r.nodeLifecycle.noExecuteTainted}`,
        ],
        [
          'pods evicted by kubelets (node pressure)',
          `${r.kubeletEvictions.count}${r.kubeletEvictions.count ? ` (${[...new Set(r.kubeletEvictions.records.map((e) => e.signal))].join(', ')})` : ''}`,
        ],
        [
          'pods evicted (first at)',
          `${r.evictions.count}${r.evictions.firstAtS !== null ? ` (${clockTime(r.evictions.firstAtS)})` : ''}`,
        ],
      ],
    ).trimEnd(),
  );
  if (r.timeline.length) {
    out.push('');
    out.push(
      table(
        ['AT', 'ACTION', 'CONVERGED AFTER'],
        r.timeline.map((t) => [
          clockTime(t.atS),
          t.label + (t.error ? ` (failed: ${t.error})` : ''),
          t.convergedAfterS === null ? 'not within window' : clockTime(t.convergedAfterS),
        ]),
      ).trimEnd(),
    );
  }
  if (r.deployments.length) {
    out.push('');
    out.push(
      table(
        ['DEPLOYMENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'REVISION'],
        r.deployments.map((d) => [d.name, `${d.ready}/${d.replicas}`, d.updated, d.available, d.revision]),
      ).trimEnd(),
    );
  }
  if (r.pendingReasons.length) {
    out.push('');
    out.push(
      table(
        ['PENDING PODS', 'REASON'],
        r.pendingReasons.slice(0, opts.wide ? undefined : 5).map((p) => [p.pods, p.message]),
      ).trimEnd(),
    );
  }
  if (r.autoscaler) out.push('', autoscalerText(r.autoscaler, opts));
  if (r.timing) out.push('', timingText(r.timing, opts));
  return out.join('\n') + '\n';
}

/**
 * Where the wall time went (timing.ts): components above 0.5 % (wide: all), and the events and
 * requests per wall second.
 */
function timingText(t: Timing, opts: { wide?: boolean }): string {
  const shown = t.components.filter((c) => opts.wide || c.percent >= 0.5).sort((a, b) => b.ms - a.ms);
  const ctl = t.controllers
    .slice(0, 3)
    .map((c) => `${c.name} ${(c.ms / 1000).toFixed(1)}s`)
    .join(', ');
  return (
    `Where the wall time went (${(t.profiledMs / 1000).toFixed(1)}s sampled every ${t.sampleIntervalMs}ms; ` +
    `${t.watchEventsPerSecond} watch events/s, ${t.requestsPerSecond} API requests/s):\n` +
    table(
      ['COMPONENT', 'WALL', 'SHARE'],
      shown.map((c) => [
        c.name === 'controllers' && ctl ? `controllers (${ctl})` : c.name,
        `${(c.ms / 1000).toFixed(1)}s`,
        `${c.percent.toFixed(1)}%`,
      ]),
    ).trimEnd()
  );
}

/** `kubectl get events` rows (LAST SEEN is virtual time since the start); wide adds COUNT */
export function formatEvents(r: SimulationResult, limit = Infinity, opts: { wide?: boolean } = {}): string {
  const rows = r.events
    .slice(-limit)
    .map((e) => [
      clockTime(e.lastSeen),
      e.type,
      e.reason,
      e.object,
      e.count > 1 && !opts.wide ? `${e.message} (x${e.count})` : e.message,
      e.count,
    ]);
  return table(
    ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE', { header: 'COUNT', wide: true }],
    rows,
    opts,
  );
}

/** The HTML report of a run. */
export function renderReport(r: SimulationResult, command?: string): string {
  const s = r.series;
  const pts = (ys: number[]) => s.t.map((t, i) => [t, ys[i]] as [number, number]);
  const markers = r.timeline.map((t) => ({ x: t.atS, label: t.label }));
  const time = {
    xLabel: 'virtual time',
    xTime: true,
    xDomain: [0, r.durationS] as [number, number],
    markers,
  };
  const evictBins = new Map<number, number>();
  for (const e of r.evictions.records)
    evictBins.set(Math.floor(e.atS / 10) * 10, (evictBins.get(Math.floor(e.atS / 10) * 10) ?? 0) + 1);
  const page: Page = {
    title: `kubesim simulation: ${r.scenario}`,
    subtitle: `${r.nodes} nodes · ${clockTime(r.durationS)} simulated in ${(r.wallMs / 1000).toFixed(1)} s · seed ${r.seed} · ${r.scheduler}`,
    command,
    sections: [
      {
        title: 'Key figures',
        blocks: [
          {
            kind: 'figures',
            items: [
              { label: 'pods created', value: String(r.pods.created) },
              { label: 'start-up p50', value: secs(r.startupLatencyMs.p50) },
              { label: 'start-up p99', value: secs(r.startupLatencyMs.p99) },
              { label: 'peak binds/s', value: String(r.schedulingThroughput.peakPodsPerSecond) },
              { label: '429 answers', value: String(r.api.tooManyRequests) },
              { label: 'evictions', value: String(r.evictions.count) },
              { label: 'pending at end', value: String(r.pods.pendingAtEnd) },
            ],
          },
        ],
      },
      {
        title: 'Pods over time',
        blocks: [
          {
            kind: 'chart',
            svg: lineChart(
              [
                { name: 'pending', points: pts(s.pending) },
                { name: 'running', points: pts(s.running) },
                { name: 'ready', points: pts(s.ready) },
                { name: 'terminating', points: pts(s.terminating) },
              ],
              { title: 'Pods', yLabel: 'pods', step: true, ...time },
            ),
          },
          {
            kind: 'chart',
            svg: lineChart(
              [
                { name: 'Ready', points: pts(s.nodesReady) },
                { name: 'NotReady/Unknown', points: pts(s.nodesNotReady) },
              ],
              { title: 'Nodes', yLabel: 'nodes', step: true, ...time },
            ),
          },
        ],
      },
      {
        title: 'Scheduling and the API server',
        blocks: [
          {
            kind: 'chart',
            svg: lineChart([{ name: 'binds/s', points: pts(s.bindRate) }], {
              title: 'Scheduling throughput',
              yLabel: 'pods/s',
              step: true,
              ...time,
            }),
          },
          {
            kind: 'chart',
            svg: lineChart([{ name: '429 per sample', points: pts(s.throttled), color: '#d62728' }], {
              title: '429 TooManyRequests (max-in-flight)',
              yLabel: 'answers',
              step: true,
              ...time,
            }),
          },
          {
            kind: 'table',
            headers: [
              'requests',
              '429',
              'retries',
              'failed after retries',
              'peak mutating in flight',
              'peak read-only in flight',
            ],
            rows: [
              [
                r.api.requests,
                r.api.tooManyRequests,
                r.api.retries,
                r.api.failedAfterRetries,
                r.api.peakMutatingInflight,
                r.api.peakInflight,
              ],
            ],
          },
        ],
      },
      {
        title: 'Pod start-up latency (creation → Ready)',
        blocks: [
          {
            kind: 'chart',
            svg: histogram(
              r.startupLatencySamplesMs.map((v) => v / 1000),
              {
                title: 'Start-up latency',
                xLabel: 'creation → Ready',
                yLabel: 'pods (sampled)',
                bins: 40,
                xFormat: (v) => `${compact(v)}s`,
              },
            ),
          },
          {
            kind: 'table',
            headers: ['pods', 'p50', 'p90', 'p99', 'max'],
            rows: [
              [
                r.startupLatencyMs.count,
                secs(r.startupLatencyMs.p50),
                secs(r.startupLatencyMs.p90),
                secs(r.startupLatencyMs.p99),
                secs(r.startupLatencyMs.max),
              ],
            ],
          },
        ],
      },
      {
        title: 'Timeline and convergence',
        blocks: [
          {
            kind: 'table',
            headers: ['at', 'action', 'converged after'],
            rows: r.timeline.map((t) => [
              clockTime(t.atS),
              t.label + (t.error ? ` (failed: ${t.error})` : ''),
              t.convergedAfterS === null ? 'not within window' : clockTime(t.convergedAfterS),
            ]),
          },
          ...(r.evictions.count
            ? [
                {
                  kind: 'chart' as const,
                  svg: lineChart(
                    [
                      {
                        name: 'evictions per 10 s',
                        points: [...evictBins].sort((a, b) => a[0] - b[0]),
                        style: 'points' as const,
                      },
                    ],
                    { title: 'Taint-based evictions', yLabel: 'pods', ...time },
                  ),
                },
              ]
            : []),
          {
            kind: 'table',
            headers: ['deployment', 'ready', 'up-to-date', 'available', 'revision'],
            rows: r.deployments.map((d) => [
              d.name,
              `${d.ready}/${d.replicas}`,
              d.updated,
              d.available,
              d.revision,
            ]),
          },
          ...(r.pendingReasons.length
            ? [
                {
                  kind: 'table' as const,
                  headers: ['pending pods', 'reason'],
                  rows: r.pendingReasons.slice(0, 10).map((p) => [p.pods, p.message]),
                },
              ]
            : []),
        ],
      },
      ...(r.autoscaler ? [autoscalerSection(r.autoscaler, time)] : []),
      {
        title: 'Events (last 200)',
        blocks: [
          {
            kind: 'table',
            headers: ['last seen', 'type', 'reason', 'object', 'message'],
            rows: r.events
              .slice(-200)
              .map((e) => [
                clockTime(e.lastSeen),
                e.type,
                e.reason,
                e.object,
                e.count > 1 ? `${e.message} (x${e.count})` : e.message,
              ]),
          },
        ],
      },
    ],
  };
  return renderPage(page);
}

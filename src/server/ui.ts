/**
 * `GET /ui`: one self-contained page (src/server/ui/page.ts: inline CSS and script, nothing
 * fetched from elsewhere) that watches the served cluster through the same Kubernetes API kubectl
 * uses, and so works against any kubectl-compatible server it is served beside:
 *
 *  - per zone, a heatmap of every node's requested / allocatable (CPU, memory, pods) grouped by
 *    instance type, with NotReady, cordoned and tainted nodes marked, and the zone's aggregates;
 *  - pending pods grouped by the reasons of their FitError, each group opening the explain
 *    (/kubesim/v1/explain) of one member;
 *  - charts over time of what the watch brings (pods by phase, nodes by condition, binds,
 *    evictions) and 429s; the virtual clock's controls (/kubesim/v1/clock);
 *  - pods and nodes tables with kubectl's columns (metav1.Table), sortable, filtered by namespace,
 *    label selector and field selector, virtualized.
 *
 * kubesim-only endpoints (clock, explain, stats, fragmentation) are optional: the page hides what a
 * server without them cannot give. docs/server.md describes the page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PAGE } from './ui/page.js';

/** Answers `GET /ui` (and `/ui/`) with the page. */
export async function uiRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (url.pathname !== '/ui' && url.pathname !== '/ui/') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
    'Content-Length': Buffer.byteLength(PAGE),
  });
  res.end(req.method === 'HEAD' ? undefined : PAGE);
  return true;
}

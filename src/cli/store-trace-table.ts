/** The trace table `kubesim store replay` and `store record -o table` print: one row per op. */
import { table } from '../report/table.js';
import type { GoldenTrace, TraceOp } from '../store/trace/index.js';

const show = (s: string) => JSON.stringify(s).slice(1, -1);

function describeOp(op: TraceOp): string {
  const parts: string[] = [op.op];
  if (typeof op.id === 'string' || typeof op.id === 'number') parts.push(String(op.id));
  if (typeof op.key === 'string')
    parts.push(show(op.key) + (typeof op.rangeEnd === 'string' ? `..${show(op.rangeEnd)}` : ''));
  if (typeof op.value === 'string') parts.push(`=${show(op.value)}`);
  if (typeof op.lease === 'string' || op.lease === null) parts.push(`lease=${op.lease}`);
  for (const f of ['revision', 'startRevision', 'limit', 'ttl', 'ms'])
    if (op[f] !== undefined) parts.push(`${f}=${op[f]}`);
  if (op.op === 'txn')
    parts.push(
      `${(op.compare as unknown[] | undefined)?.length ?? 0} cmp, ${(op.success as unknown[] | undefined)?.length ?? 0}/${(op.failure as unknown[] | undefined)?.length ?? 0} ops`,
    );
  return parts.join(' ');
}

function summarize(answer: unknown): string {
  const a = answer as Record<string, unknown>;
  if (a.error)
    return `ERROR ${(a.error as { codeName: string; message: string }).codeName}: ${(a.error as { message: string }).message}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(a)) {
    if (k === 'revision') continue;
    if (k === 'kvs')
      parts.push(
        `kvs=[${(v as { key: string; value: string }[]).map((kv) => `${show(kv.key)}=${show(kv.value)}`).join(' ')}]`,
      );
    else if (k === 'responses') parts.push(`${(v as unknown[]).length} responses`);
    else if (k === 'prevKvs') parts.push(`prevKvs=${(v as unknown[]).length}`);
    else if (v !== null && v !== false) parts.push(`${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
  return parts.join(' ');
}

export function renderReplay(
  trace: GoldenTrace,
  answers: unknown[],
  events: Record<string, { type: string; kv: { key: string; value: string; modRevision: number } }[]>,
  diffWheres?: string[],
): string {
  const rows = trace.ops.map((op, i) => {
    const rev = (answers[i] as { revision?: number })?.revision;
    const row: (string | number)[] = [i, describeOp(op), rev ?? '', summarize(answers[i])];
    if (diffWheres)
      row.unshift(diffWheres.some((w) => w.startsWith(`ops[${i}] `)) ? 'DIFF' : op.quirk ? 'ok*' : 'ok');
    return row;
  });
  const headers = ['#', 'OP', 'REV', 'ANSWER'];
  if (diffWheres) headers.unshift('CHECK');
  let out =
    `trace ${trace.name}: ${trace.ops.length} ops${trace.description ? `\n${trace.description}` : ''}\n\n` +
    table(headers, rows);
  const wrows: (string | number)[][] = [];
  for (const [id, evs] of Object.entries(events)) {
    if (evs.length === 0) wrows.push([id, '', '(no events)', '']);
    for (const e of evs)
      wrows.push([
        id,
        e.kv.modRevision,
        e.type,
        `${show(e.kv.key)}${e.type === 'PUT' ? `=${show(e.kv.value)}` : ''}`,
      ]);
  }
  if (wrows.length) out += '\nwatch events\n' + table(['WATCHER', 'REV', 'TYPE', 'KEY'], wrows);
  return out;
}

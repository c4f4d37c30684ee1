/** Output helpers shared by commands: aligned text tables and JSON. */

export type OutputFormat = 'table' | 'json';

export function parseOutputFormat(value: string, allowed: readonly string[] = ['table', 'json']): string {
  if (!allowed.includes(value))
    throw new Error(`unknown output format "${value}" (expected ${allowed.join(', ')})`);
  return value;
}

/** Renders rows as a left-aligned table with a header, the way kubectl prints `get`. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return (
    cells
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
          .join('   ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

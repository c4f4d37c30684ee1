/** Plain-text tables for terminals and logs: the rows people read in `-o table` output. */

/** A column; `wide` columns appear only in `-o wide` (as kubectl's extra columns do). */
export interface Column {
  header: string;
  wide?: boolean;
}

/**
 * Renders rows as a left-aligned table with a header, the way kubectl prints `get`. Rows carry a
 * cell for every column; with `wide: false` (the default) the wide columns are left out.
 */
export function table(
  columns: (string | Column)[],
  rows: (string | number)[][],
  opts: { wide?: boolean } = {},
): string {
  const cols = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const keep = cols.map((c, i) => (opts.wide || !c.wide ? i : -1)).filter((i) => i >= 0);
  const headers = keep.map((i) => cols[i].header);
  const cells = [headers, ...rows.map((r) => keep.map((i) => String(r[i] ?? '')))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return `${cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

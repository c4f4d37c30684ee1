/** Plain-text tables for terminals and logs: the rows people read in `-o table` output. */

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

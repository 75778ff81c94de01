/**
 * Rows as left-aligned columns separated by two spaces, with a header line: readable in a terminal
 * and easy to cut with awk, like `gh`'s lists. Cells are single-line; `null`/`undefined` print as `-`.
 */
export function columns(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(cellText))];
  const widths = headers.map((_, index) => Math.max(...cells.map((row) => row[index]?.length ?? 0)));
  return cells
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function cellText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-';
  return String(value).replace(/\s+/g, ' ');
}

/** A text cut to `max` characters with an ellipsis, for free text in a table. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

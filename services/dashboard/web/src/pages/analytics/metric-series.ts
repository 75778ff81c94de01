/** One point of a metric's line: a post's value, or null when the network did not give that metric. */
export interface Point {
  at: string;
  label: string;
  value: number | null;
}

interface Row {
  published_at?: string;
  text?: string;
  metrics: Record<string, number>;
}

/** Every metric key any row has, sorted: the chart's choices. */
export function metricKeys(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((row) => Object.keys(row.metrics)))].sort();
}

/**
 * A metric over time, oldest first. A row without the metric (its network does not report it, or
 * it is not synced yet) is a gap, never a zero.
 */
export function seriesOf(rows: readonly Row[], metric: string): Point[] {
  return [...rows]
    .filter((row) => row.published_at !== undefined)
    .sort((a, b) => a.published_at!.localeCompare(b.published_at!))
    .map((row) => ({
      at: row.published_at!,
      label: (row.text ?? '').slice(0, 40),
      value: Object.hasOwn(row.metrics, metric) ? row.metrics[metric]! : null,
    }));
}

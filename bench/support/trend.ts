/** A straight line fitted through a run's per-window figures, read at its first and last window. */
export interface Trend {
  /** The line's value at the first window. */
  start: number;
  /** The line's value at the last window. */
  end: number;
  /** Change per window. */
  slope: number;
  /** Two standard errors of the slope: a slope inside +-margin is not told apart from flat. */
  margin: number;
}

/**
 * Least squares through every window, so the start and the end each lean on the whole run: one
 * window's rate moves by 10-25% on this machine (docs/performance.md, "Soak: reading the trend"),
 * and a mean of three windows at each end still swung the ratio by as much as the target allows.
 */
export function fitTrend(values: readonly number[]): Trend {
  const n = values.length;
  if (n === 0) throw new Error('a trend needs at least one value');
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, y) => sum + y, 0) / n;
  const sxx = values.reduce((sum, _, x) => sum + (x - meanX) ** 2, 0);
  if (sxx === 0) return { start: meanY, end: meanY, slope: 0, margin: 0 };
  const slope = values.reduce((sum, y, x) => sum + (x - meanX) * (y - meanY), 0) / sxx;
  const start = meanY - slope * meanX;
  const residuals = values.reduce((sum, y, x) => sum + (y - (start + slope * x)) ** 2, 0);
  const margin = n > 2 ? 2 * Math.sqrt(residuals / (n - 2) / sxx) : Number.POSITIVE_INFINITY;
  return { start, end: start + slope * (n - 1), slope, margin };
}

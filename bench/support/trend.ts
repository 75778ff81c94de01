/** The mean of some figures (0 for none): the soak's windows, the twin's, a trend's. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

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
 * window's rate moves by 10-25% on this machine (docs/performance.md, "Soak"),
 * and a mean of three windows at each end still swung the ratio by as much as the target allows.
 */
export function fitTrend(values: readonly number[]): Trend {
  const n = values.length;
  if (n === 0) throw new Error('a trend needs at least one value');
  const meanX = (n - 1) / 2;
  const meanY = mean(values);
  const sxx = values.reduce((sum, _, x) => sum + (x - meanX) ** 2, 0);
  if (sxx === 0) return { start: meanY, end: meanY, slope: 0, margin: 0 };
  const slope = values.reduce((sum, y, x) => sum + (x - meanX) * (y - meanY), 0) / sxx;
  const start = meanY - slope * meanX;
  const residuals = values.reduce((sum, y, x) => sum + (y - (start + slope * x)) ** 2, 0);
  const margin = n > 2 ? 2 * Math.sqrt(residuals / (n - 2) / sxx) : Number.POSITIVE_INFINITY;
  return { start, end: start + slope * (n - 1), slope, margin };
}

/** A trend read with a second measure of each window held at its mean: see `fitTrendBeside`. */
export interface TrendBeside extends Trend {
  /** Change of the value per unit of the second measure, the window held fixed. */
  perUnit: number;
}

/**
 * Least squares through every window with the window's number and a second measure of it (the
 * memory probe's ns per read: this machine's neighbours slow it by 20% for a minute at a time, and
 * the rates follow, docs/performance.md, "Soak"), read at that measure's
 * mean. The line's slope is then the change with time that the machine's speed does not explain: a
 * diagnostic beside the verdict's `fitTrend`, never instead of it.
 */
export function fitTrendBeside(values: readonly number[], beside: readonly number[]): TrendBeside {
  const n = values.length;
  if (beside.length !== n) throw new Error('one second measure per window');
  if (n < 3) throw new Error('a trend beside a second measure needs at least three windows');
  const [meanX, meanY, meanZ] = [(n - 1) / 2, mean(values), mean(beside)];
  const sum = (term: (x: number, y: number, z: number) => number) =>
    values.reduce((total, y, x) => total + term(x - meanX, y - meanY, beside[x]! - meanZ), 0);
  const [sxx, szz, sxz, sxy, szy] = [
    sum((x) => x * x),
    sum((_, __, z) => z * z),
    sum((x, _, z) => x * z),
    sum((x, y) => x * y),
    sum((_, y, z) => z * y),
  ];
  const determinant = sxx * szz - sxz * sxz;
  if (determinant <= 1e-9 * sxx * szz) throw new Error('the second measure does not vary apart from time');
  const slope = (sxy * szz - szy * sxz) / determinant;
  const perUnit = (szy * sxx - sxy * sxz) / determinant;
  const start = meanY - slope * meanX;
  const residuals = sum((x, y, z) => (y - slope * x - perUnit * z) ** 2);
  const margin = n > 3 ? 2 * Math.sqrt((residuals / (n - 3)) * (szz / determinant)) : Number.POSITIVE_INFINITY;
  return { start, end: start + slope * (n - 1), slope, margin, perUnit };
}

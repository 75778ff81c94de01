import { fitTrend } from '../../bench/support/trend.ts';

/** The soak's verdict: a line through every window, not the means of a few at each end. */
describe('fitTrend', () => {
  it('finds a decay in noisy windows and says it is more than noise', () => {
    // Window rates of a real 30-minute soak (f6de5ca, 2026-11-23 21:10 UTC), the warm-up window left out.
    const rates = [154.6, 138.6, 118.5, 122.4, 134.9, 120.8, 102.7, 141.0, 138.5, 125.9, 117.6, 124.9, 127.1, 123.5, 121.1,
      113.8, 104.3, 134.4, 99.8, 119.0, 127.2, 101.5, 117.2, 113.3, 113.6, 105.7, 107.5, 110.4, 114.4];
    const trend = fitTrend(rates);
    expect(trend.end / trend.start).toBeCloseTo(0.805, 2);
    expect(trend.slope + trend.margin).toBeLessThan(0);
  });

  it('reads a flat run as flat although its last windows happen to be high', () => {
    const rates = [100, 90, 110, 95, 105, 100, 92, 108, 100, 96, 104, 100, 118, 116, 117];
    const trend = fitTrend(rates);
    // The means of the first and last three windows would say 1.17.
    expect((117 + 116 + 118) / (100 + 90 + 110)).toBeGreaterThan(1.15);
    expect(trend.end / trend.start).toBeGreaterThan(1);
    expect(trend.end / trend.start).toBeLessThan(1.2);
    expect(Math.abs(trend.slope)).toBeLessThan(trend.margin * 1.5);
  });

  it('is exact on a straight line, and says nothing of the slope from one or two windows', () => {
    expect(fitTrend([10, 8, 6, 4])).toEqual({ start: 10, end: 4, slope: -2, margin: 0 });
    expect(fitTrend([7])).toEqual({ start: 7, end: 7, slope: 0, margin: 0 });
    expect(fitTrend([5, 3])).toMatchObject({ start: 5, end: 3, slope: -2, margin: Number.POSITIVE_INFINITY });
    expect(() => fitTrend([])).toThrow();
  });
});

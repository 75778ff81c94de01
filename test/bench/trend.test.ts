import { fitTrend, fitTrendBeside } from '../../bench/support/trend.ts';

/** The soak's verdict: a line through every window, not the means of a few at each end. */
describe('fitTrend', () => {
  it('finds a decay in noisy windows and says it is more than noise', () => {
    // Window rates of a real 30-minute soak (f6de5ca, 2026-11-23 21:10 UTC), the warm-up window left out.
    const rates = [
      154.6, 138.6, 118.5, 122.4, 134.9, 120.8, 102.7, 141.0, 138.5, 125.9, 117.6, 124.9, 127.1, 123.5, 121.1, 113.8,
      104.3, 134.4, 99.8, 119.0, 127.2, 101.5, 117.2, 113.3, 113.6, 105.7, 107.5, 110.4, 114.4,
    ];
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

/** The same line with the machine's memory speed beside it: what time explains apart from the machine. */
describe('fitTrendBeside', () => {
  it("is exact on a plane, and reads the line at the second measure's mean", () => {
    const memory = [300, 340, 290, 310, 330, 280];
    const rates = memory.map((ns, window) => 100 - window - 0.5 * (ns - 308.3333333333333));
    const trend = fitTrendBeside(rates, memory);
    expect(trend.slope).toBeCloseTo(-1, 9);
    expect(trend.perUnit).toBeCloseTo(-0.5, 9);
    expect(trend.start).toBeCloseTo(100, 9);
    expect(trend.end).toBeCloseTo(95, 9);
    expect(trend.margin).toBeCloseTo(0, 6);
  });

  it('finds no decay in a run whose only slowdown was the machine getting slower', () => {
    // The memory probe drifts up over the run, and each window's rate follows it (with noise).
    const memory = [290, 330, 300, 345, 310, 320, 355, 305, 335, 360, 315, 350, 365, 325, 370, 340, 375, 330, 380, 350];
    const noise = [1, -2, 0, 2, -1, 1, 0, -2, 1, 2, -1, 0, 1, -1, 2, 0, -2, 1, 0, -1];
    const rates = memory.map((ns, window) => 130 - 0.4 * (ns - 300) + noise[window]!);
    const plain = fitTrend(rates);
    expect(plain.end / plain.start).toBeLessThan(0.9);
    expect(plain.slope + plain.margin).toBeLessThan(0);
    const beside = fitTrendBeside(rates, memory);
    expect(Math.abs(beside.slope)).toBeLessThan(beside.margin);
    expect(beside.end / beside.start).toBeGreaterThan(0.97);
    expect(beside.perUnit).toBeCloseTo(-0.4, 1);
  });

  it('refuses a second measure that moves with time alone, or too few windows', () => {
    expect(() => fitTrendBeside([3, 2, 1, 0], [10, 20, 30, 40])).toThrow('does not vary apart from time');
    expect(() => fitTrendBeside([3, 2], [1, 5])).toThrow('at least three');
    expect(() => fitTrendBeside([3, 2, 1], [1, 5])).toThrow('one second measure');
  });
});

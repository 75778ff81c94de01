import { afterOwnWindow, type TwinWindow } from '../../bench/scenarios/soak-twin.ts';

const windows = (order: string, rates: number[]): TwinWindow[] =>
  order
    .split(' ')
    .map((side, index) => ({ side: side as TwinWindow['side'], rate: rates[index]!, machineMs: 0, processMs: {} }));

/** The twin's steady-state comparison: each side after a window of its own, apart from the windows right after a switch. */
describe('afterOwnWindow', () => {
  it('compares the windows that follow one of the same side, and gives the ones after a switch apart', () => {
    // A soak of 2026-11-27 10:13 UTC: the twin lost about 20% right after an aged window.
    const run = windows(
      'twin aged aged twin twin aged aged twin twin aged aged twin',
      [134.8, 139.2, 143.8, 126.1, 170.1, 144.5, 150.6, 119.9, 142.7, 130.9, 152.4, 112.5],
    );
    const steady = afterOwnWindow(run)!;
    // The twin's first window follows its warm-up: one of its own.
    expect(steady.twin).toBeCloseTo((134.8 + 170.1 + 142.7) / 3, 6);
    expect(steady.aged).toBeCloseTo((143.8 + 150.6 + 152.4) / 3, 6);
    expect(steady.twinAfterSwitch).toBeCloseTo((126.1 + 119.9 + 112.5) / 3, 6);
    expect(steady.agedAfterSwitch).toBeCloseTo((139.2 + 144.5 + 130.9) / 3, 6);
    expect(steady.aged / steady.twin).toBeCloseTo(0.998, 3);
  });

  it('says nothing until each side has a window after its own and one after a switch', () => {
    expect(afterOwnWindow(windows('twin aged', [100, 90]))).toBeUndefined();
    expect(afterOwnWindow(windows('twin aged aged twin', [100, 90, 95, 80]))).toEqual({
      twin: 100,
      aged: 95,
      twinAfterSwitch: 80,
      agedAfterSwitch: 90,
    });
  });
});

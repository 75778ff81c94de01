import { backoffDelay } from './backoff.ts';

describe('backoffDelay', () => {
  it('doubles from the initial delay, with up to half of it random', () => {
    expect(backoffDelay(0, 500, 30000, () => 0)).toBe(250);
    expect(backoffDelay(0, 500, 30000, () => 1)).toBe(500);
    expect(backoffDelay(3, 500, 30000, () => 1)).toBe(4000);
  });

  it('never exceeds the maximum, however many failures', () => {
    expect(backoffDelay(1000, 500, 30000, () => 1)).toBe(30000);
    expect(backoffDelay(1000, 500, 30000, () => 0)).toBe(15000);
  });
});

import { nextRetryDelayMs, parseRetryAfter } from './retry-schedule.ts';

const schedule = [0, 5000, 30000, 300000];

describe('nextRetryDelayMs', () => {
  it('follows the schedule and ends when it is used up', () => {
    const fixed = { jitter: 0 };
    expect(nextRetryDelayMs(schedule, 1, fixed)).toBe(5000);
    expect(nextRetryDelayMs(schedule, 2, fixed)).toBe(30000);
    expect(nextRetryDelayMs(schedule, 3, fixed)).toBe(300000);
    expect(nextRetryDelayMs(schedule, 4, fixed)).toBeUndefined();
  });

  it('keeps jitter within ±20%', () => {
    expect(nextRetryDelayMs(schedule, 2, { jitter: 0.2, random: () => 0 })).toBe(24000);
    expect(nextRetryDelayMs(schedule, 2, { jitter: 0.2, random: () => 1 })).toBe(36000);
  });

  it('honours Retry-After between the scheduled delay and twice it', () => {
    expect(nextRetryDelayMs(schedule, 1, { jitter: 0, retryAfterMs: 8000 })).toBe(8000);
    expect(nextRetryDelayMs(schedule, 1, { jitter: 0, retryAfterMs: 1000 })).toBe(5000);
    expect(nextRetryDelayMs(schedule, 1, { jitter: 0, retryAfterMs: 3_600_000 })).toBe(10000);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000)).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

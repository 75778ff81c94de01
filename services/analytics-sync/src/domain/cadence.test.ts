import { freshnessInterval, staleAfter } from './cadence.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('refresh cadence by post age', () => {
  it('slows as the post ages: 15 min the first day, hourly the first week, daily for a month, weekly after', () => {
    expect(freshnessInterval(0)).toBe(15 * MINUTE);
    expect(freshnessInterval(DAY - 1)).toBe(15 * MINUTE);
    expect(freshnessInterval(DAY)).toBe(HOUR);
    expect(freshnessInterval(7 * DAY - 1)).toBe(HOUR);
    expect(freshnessInterval(7 * DAY)).toBe(DAY);
    expect(freshnessInterval(30 * DAY)).toBe(7 * DAY);
    expect(freshnessInterval(400 * DAY)).toBe(7 * DAY);
  });

  it('dates staleness from the refresh, with the interval of the post age at that time', () => {
    const live = new Date('2026-01-01T00:00:00Z');
    expect(staleAfter(live, new Date('2026-01-01T01:00:00Z')).toISOString()).toBe('2026-01-01T01:15:00.000Z');
    expect(staleAfter(live, new Date('2026-01-03T00:00:00Z')).toISOString()).toBe('2026-01-03T01:00:00.000Z');
    expect(staleAfter(live, new Date('2026-03-01T00:00:00Z')).toISOString()).toBe('2026-03-08T00:00:00.000Z');
  });
});

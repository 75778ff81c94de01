import {
  canonicalTimeZone,
  instantOf,
  nextOccurrences,
  weeklyScheduleProblems,
  type WeeklySchedule,
} from '@svc/calendar';

const iso = (dates: Date[]): string[] => dates.map((date) => date.toISOString());
const at = (text: string): Date => new Date(text);

describe('weekly occurrences', () => {
  it('maps weekdays and times in the zone, strictly after the instant', () => {
    const schedule: WeeklySchedule = {
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'tue', time: '09:00' },
        { day: 'thu', time: '18:30' },
      ],
    };
    // 2026-12-01 is a Tuesday; Berlin is UTC+1 in winter.
    expect(iso(nextOccurrences(schedule, at('2026-12-01T07:00:00Z'), 3))).toEqual([
      '2026-12-01T08:00:00.000Z',
      '2026-12-03T17:30:00.000Z',
      '2026-12-08T08:00:00.000Z',
    ]);
    expect(iso(nextOccurrences(schedule, at('2026-12-01T08:00:00Z'), 1))).toEqual(['2026-12-03T17:30:00.000Z']);
  });

  it('crosses the date line of the zone: a Monday 00:30 in Tokyo is Sunday in UTC', () => {
    const schedule: WeeklySchedule = { timezone: 'Asia/Tokyo', slots: [{ day: 'mon', time: '00:30' }] };
    expect(iso(nextOccurrences(schedule, at('2026-12-06T00:00:00Z'), 2))).toEqual([
      '2026-12-06T15:30:00.000Z',
      '2026-12-13T15:30:00.000Z',
    ]);
  });

  it('moves a time Berlin skips (spring forward 02:00 -> 03:00) forward by the jump', () => {
    const schedule: WeeklySchedule = { timezone: 'Europe/Berlin', slots: [{ day: 'sun', time: '02:30' }] };
    // 02:30 CET would be 01:30Z; that day the clocks show 03:30 CEST then (01:30Z), a week later 02:30 CEST.
    expect(iso(nextOccurrences(schedule, at('2026-03-28T00:00:00Z'), 2))).toEqual([
      '2026-03-29T01:30:00.000Z',
      '2026-04-05T00:30:00.000Z',
    ]);
  });

  it('counts a time Berlin shows twice (fall back 03:00 -> 02:00) once, at its first occurrence', () => {
    const schedule: WeeklySchedule = { timezone: 'Europe/Berlin', slots: [{ day: 'sun', time: '02:30' }] };
    expect(iso(nextOccurrences(schedule, at('2026-10-24T00:00:00Z'), 2))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-11-01T01:30:00.000Z',
    ]);
    // After the first 02:30 the repeated one is not a second slot.
    expect(iso(nextOccurrences(schedule, at('2026-10-25T00:30:00Z'), 1))).toEqual(['2026-11-01T01:30:00.000Z']);
  });

  it('handles New York in both directions', () => {
    const spring: WeeklySchedule = { timezone: 'America/New_York', slots: [{ day: 'sun', time: '02:30' }] };
    expect(iso(nextOccurrences(spring, at('2026-03-07T00:00:00Z'), 1))).toEqual(['2026-03-08T07:30:00.000Z']);
    const fall: WeeklySchedule = { timezone: 'America/New_York', slots: [{ day: 'sun', time: '01:30' }] };
    expect(iso(nextOccurrences(fall, at('2026-10-31T00:00:00Z'), 2))).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-08T06:30:00.000Z',
    ]);
  });

  it("handles Lord Howe's half-hour shift both ways", () => {
    // DST starts 2026-10-04 02:00 -> 02:30 (+10:30 -> +11); 02:15 is skipped and becomes 02:45.
    const spring: WeeklySchedule = { timezone: 'Australia/Lord_Howe', slots: [{ day: 'sun', time: '02:15' }] };
    expect(iso(nextOccurrences(spring, at('2026-10-03T00:00:00Z'), 1))).toEqual(['2026-10-03T15:45:00.000Z']);
    // DST ends 2026-04-05 02:00 -> 01:30; 01:45 happens twice, first at +11.
    const fall: WeeklySchedule = { timezone: 'Australia/Lord_Howe', slots: [{ day: 'sun', time: '01:45' }] };
    expect(iso(nextOccurrences(fall, at('2026-04-04T00:00:00Z'), 2))).toEqual([
      '2026-04-04T14:45:00.000Z',
      '2026-04-11T15:15:00.000Z',
    ]);
  });

  it('keeps a skipped time in order and counts two slots landing on one instant once', () => {
    const schedule: WeeklySchedule = {
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'sun', time: '02:30' },
        { day: 'sun', time: '03:15' },
        { day: 'sun', time: '03:30' },
      ],
    };
    expect(iso(nextOccurrences(schedule, at('2026-03-29T00:00:00Z'), 3))).toEqual([
      '2026-03-29T01:15:00.000Z',
      '2026-03-29T01:30:00.000Z',
      '2026-04-05T00:30:00.000Z',
    ]);
  });

  it('stops at the horizon and yields nothing for an empty schedule', () => {
    const schedule: WeeklySchedule = { timezone: 'UTC', slots: [{ day: 'mon', time: '10:00' }] };
    expect(nextOccurrences(schedule, at('2026-12-01T00:00:00Z'), 5, 14)).toHaveLength(2);
    expect(nextOccurrences({ timezone: 'UTC', slots: [] }, at('2026-12-01T00:00:00Z'), 5)).toEqual([]);
  });

  it('reads wall clocks the same way instantOf writes them', () => {
    expect(
      new Date(instantOf('Europe/Berlin', { year: 2026, month: 7, day: 1, hour: 12, minute: 0 })).toISOString(),
    ).toBe('2026-07-01T10:00:00.000Z');
  });
});

describe('schedule validation', () => {
  it('accepts IANA names in any case and refuses the rest', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(canonicalTimeZone('+01:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
  });

  it('names every problem with its path and rule', () => {
    expect(
      weeklyScheduleProblems(
        {
          timezone: 'Nowhere/City',
          slots: [
            { day: 'monday', time: '09:00' },
            { day: 'tue', time: '24:00' },
            { day: 'wed', time: '9:00' },
            { day: 'thu', time: '10:00' },
            { day: 'thu', time: '10:00' },
          ],
        },
        '/body',
      ).map((problem) => [problem.path, problem.rule]),
    ).toEqual([
      ['/body/timezone', 'timezone_invalid'],
      ['/body/slots/0/day', 'day_invalid'],
      ['/body/slots/1/time', 'time_invalid'],
      ['/body/slots/2/time', 'time_invalid'],
      ['/body/slots/4', 'slot_duplicate'],
    ]);
    expect(weeklyScheduleProblems({ timezone: 'Asia/Tokyo', slots: [{ day: 'sun', time: '23:59' }] }, '')).toEqual([]);
  });
});

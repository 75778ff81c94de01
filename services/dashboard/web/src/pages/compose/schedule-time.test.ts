import { scheduleProblem, utcToWallTime, wallTimeToUtc, zoneOffsetMinutes } from './schedule-time.ts';

describe('scheduled times in the user time zone', () => {
  it('turns a wall-clock time of a zone into the UTC instant, across DST', () => {
    expect(wallTimeToUtc('2027-01-15T09:30', 'Europe/Paris').toISOString()).toBe('2027-01-15T08:30:00.000Z');
    expect(wallTimeToUtc('2027-07-15T09:30', 'Europe/Paris').toISOString()).toBe('2027-07-15T07:30:00.000Z');
    expect(wallTimeToUtc('2027-07-15T09:30', 'America/New_York').toISOString()).toBe('2027-07-15T13:30:00.000Z');
    expect(wallTimeToUtc('2027-07-15T09:30', 'Asia/Kolkata').toISOString()).toBe('2027-07-15T04:00:00.000Z');
    expect(wallTimeToUtc('2027-07-15T09:30', 'UTC').toISOString()).toBe('2027-07-15T09:30:00.000Z');
  });

  it('moves a time skipped by the spring change forward and takes the first of a repeated one', () => {
    // Paris skips 02:00-03:00 on 2027-03-28 and repeats 02:00-03:00 on 2027-10-31.
    expect(utcToWallTime(wallTimeToUtc('2027-03-28T02:30', 'Europe/Paris'), 'Europe/Paris')).toBe('2027-03-28T03:30');
    expect(wallTimeToUtc('2027-10-31T02:30', 'Europe/Paris').toISOString()).toBe('2027-10-31T00:30:00.000Z');
  });

  it('shows an instant as the wall time of the zone, and knows the offset', () => {
    expect(utcToWallTime(new Date('2027-01-15T23:30:00Z'), 'Asia/Tokyo')).toBe('2027-01-16T08:30');
    expect(zoneOffsetMinutes(Date.parse('2027-01-15T00:00:00Z'), 'Europe/Paris')).toBe(60);
    expect(zoneOffsetMinutes(Date.parse('2027-07-15T00:00:00Z'), 'America/Los_Angeles')).toBe(-420);
  });

  it('refuses an empty or past time', () => {
    const now = new Date('2027-01-15T08:00:00Z');
    expect(scheduleProblem('', 'Europe/Paris', now)).toBe('Choose a date and time.');
    expect(scheduleProblem('2027-01-15T08:59', 'Europe/Paris', now)).toBe('Choose a time in the future.');
    expect(scheduleProblem('2027-01-15T09:01', 'Europe/Paris', now)).toBeNull();
    expect(() => wallTimeToUtc('tomorrow', 'UTC')).toThrow(RangeError);
  });
});

import { emptyRecurrence, recurrenceBody, recurrenceProblems } from './recurrence.ts';

describe('"Repeat weekly" as the API\'s recurrence', () => {
  it("sends the days in week order, once each, at the time in the user's zone, with no end", () => {
    const body = recurrenceBody({ ...emptyRecurrence(), days: ['fri', 'mon', 'fri'], time: '08:30' }, 'Europe/Paris');
    expect(body).toEqual({ freq: 'weekly', days: ['mon', 'fri'], time: '08:30', timezone: 'Europe/Paris' });
  });

  it("ends after the last minute of the until day in the user's zone", () => {
    const form = { ...emptyRecurrence(), days: ['tue' as const], end: 'until' as const, until: '2031-03-04' };
    // Paris is UTC+1 in March: 23:59 there is 22:59 UTC.
    expect(recurrenceBody(form, 'Europe/Paris').until).toBe('2031-03-04T22:59:00.000Z');
    expect(recurrenceBody(form, 'America/New_York').until).toBe('2031-03-05T04:59:00.000Z');
    expect(recurrenceBody(form, 'Europe/Paris')).not.toHaveProperty('count');
  });

  it('sends a count only when the end is a number of posts', () => {
    const form = { ...emptyRecurrence(), days: ['sun' as const], end: 'count' as const, count: 5, until: '2031-01-01' };
    const body = recurrenceBody(form, 'UTC');
    expect(body.count).toBe(5);
    expect(body).not.toHaveProperty('until');
  });

  it('says what is missing, by field, before anything is sent', () => {
    expect(recurrenceProblems({ ...emptyRecurrence(), days: ['mon'] })).toEqual({});
    expect(recurrenceProblems(emptyRecurrence())).toEqual({ days: 'Choose at least one day.' });
    expect(recurrenceProblems({ ...emptyRecurrence(), days: ['mon'], time: '24:00' })).toEqual({
      time: 'Choose a time.',
    });
    expect(recurrenceProblems({ ...emptyRecurrence(), days: ['mon'], end: 'until' })).toEqual({
      end: 'Choose the last day.',
    });
    expect(recurrenceProblems({ ...emptyRecurrence(), days: ['mon'], end: 'count' })).toEqual({
      end: 'Say how many posts.',
    });
  });
});

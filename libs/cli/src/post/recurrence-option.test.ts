import { UsageError } from '../errors.ts';
import { describeRule, recurrenceOf } from './recurrence-option.ts';

describe('recurrenceOf', () => {
  it('reads --repeat days@HH:MM in the zone given, or the default one, each day once', () => {
    expect(recurrenceOf({ repeat: 'Mon,wed,fri,mon@09:00', timezone: 'Europe/Berlin' }, 'UTC')).toEqual({
      freq: 'weekly',
      days: ['mon', 'wed', 'fri'],
      time: '09:00',
      timezone: 'Europe/Berlin',
    });
    expect(recurrenceOf({ repeat: 'sun@23:59' }, 'America/New_York')).toMatchObject({
      days: ['sun'],
      timezone: 'America/New_York',
    });
  });

  it('adds --until as an instant in UTC, or --count', () => {
    expect(recurrenceOf({ repeat: 'tue@18:30', until: '2031-06-30T23:59+02:00' }, 'UTC')).toMatchObject({
      until: '2031-06-30T21:59:00.000Z',
    });
    expect(recurrenceOf({ repeat: 'tue@18:30', count: 4 }, 'UTC')).toMatchObject({ count: 4 });
  });

  it('is undefined without --repeat', () => {
    expect(recurrenceOf({}, 'UTC')).toBeUndefined();
  });

  it.each<[string, Parameters<typeof recurrenceOf>[0], RegExp]>([
    ['no time', { repeat: 'mon,wed' }, /is not days@HH:MM/],
    ['an unknown day', { repeat: 'mon,someday@09:00' }, /is not days@HH:MM/],
    ['an hour past 23', { repeat: 'mon@24:00' }, /is not days@HH:MM/],
    ['no day', { repeat: '@09:00' }, /is not days@HH:MM/],
    ['until and count', { repeat: 'mon@09:00', until: '2031-01-01T00:00Z', count: 2 }, /exclude each other/],
    ['until without a zone', { repeat: 'mon@09:00', until: '2031-01-01' }, /--until "2031-01-01" is not a date/],
    ['--count without --repeat', { count: 2 }, /--count goes with --repeat/],
    ['--timezone without --repeat', { timezone: 'UTC' }, /--timezone goes with --repeat/],
  ])('refuses %s', (_what, options, message) => {
    expect(() => recurrenceOf(options, 'UTC')).toThrow(UsageError);
    expect(() => recurrenceOf(options, 'UTC')).toThrow(message);
  });
});

describe('describeRule', () => {
  it('says the rule in a line', () => {
    const rule = recurrenceOf({ repeat: 'mon,fri@09:00', timezone: 'Europe/Berlin', count: 3 }, 'UTC')!;
    expect(describeRule(rule)).toBe('every mon, fri at 09:00 Europe/Berlin, 3 times');
  });
});

import { checkRecurrence, occurrenceId, occurrencesAfter } from './recurrence-rule.ts';

const rule = { freq: 'weekly' as const, days: ['mon', 'thu'], time: '09:30', timezone: 'Europe/Berlin' };

describe('recurrence rule', () => {
  it('lists the weekly times in the zone, ascending, across a daylight saving change', () => {
    // Berlin goes from CET to CEST on Sunday 2026-03-29.
    const times = occurrencesAfter(rule, new Date('2026-03-23T00:00:00Z'), { end: null, limit: 4, alreadyCreated: 0 });
    expect(times.map((at) => at.toISOString())).toEqual([
      '2026-03-23T08:30:00.000Z',
      '2026-03-26T08:30:00.000Z',
      '2026-03-30T07:30:00.000Z',
      '2026-04-02T07:30:00.000Z',
    ]);
  });

  it('stops at count (those created included), at until and at the end given', () => {
    const after = new Date('2026-03-23T00:00:00Z');
    expect(occurrencesAfter({ ...rule, count: 3 }, after, { end: null, limit: 10, alreadyCreated: 2 })).toHaveLength(1);
    const until = '2026-03-30T07:30:00.000Z';
    expect(occurrencesAfter({ ...rule, until }, after, { end: null, limit: 10, alreadyCreated: 0 })).toHaveLength(3);
    const end = new Date('2026-03-26T08:30:00.000Z');
    expect(occurrencesAfter(rule, after, { end, limit: 10, alreadyCreated: 0 })).toHaveLength(2);
  });

  it('derives one version-5-shaped id per (recurrence, time)', () => {
    const at = new Date('2026-03-23T08:30:00Z');
    const id = occurrenceId('01a23417-c79e-7655-b943-3b6c1cc0dea7', at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(occurrenceId('01a23417-c79e-7655-b943-3b6c1cc0dea7', new Date(at))).toBe(id);
    expect(occurrenceId('01a23417-c79e-7655-b943-3b6c1cc0dea7', new Date(at.getTime() + 60_000))).not.toBe(id);
  });

  it('names every problem of the rule and of what comes with it', () => {
    const now = new Date('2026-03-23T00:00:00Z');
    const { problems, first } = checkRecurrence(
      { ...rule, days: ['mon', 'moon'], timezone: 'Nowhere/City', until: '2026-03-01T00:00:00Z', count: 2 },
      { scheduledAt: '2026-04-01T00:00:00Z', queue: true, draft: true },
      now,
      now,
    );
    expect(first).toBeUndefined();
    expect(problems.map((problem) => problem.rule)).toEqual([
      'timezone_invalid',
      'day_invalid',
      'until_with_count',
      'until_not_future',
      'recurrence_with_scheduled_at',
      'recurrence_with_queue',
      'recurrence_with_draft',
    ]);
  });

  it('answers the first time, or until_before_first when no time of the rule comes before until', () => {
    const now = new Date('2026-03-23T00:00:00Z');
    const early = checkRecurrence({ ...rule, until: '2026-03-23T00:30:00Z' }, {}, now, now);
    expect(early.problems.map((problem) => problem.rule)).toEqual(['until_before_first']);
    const fine = checkRecurrence(rule, {}, now, now);
    expect(fine.problems).toEqual([]);
    expect(fine.first).toEqual(occurrencesAfter(rule, now, { end: null, limit: 1, alreadyCreated: 0 })[0]);
  });
});

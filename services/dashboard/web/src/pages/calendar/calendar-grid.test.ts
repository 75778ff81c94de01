import { byDay, dayKey, monthWeeks, shiftMonth, weekDays } from './calendar-grid.ts';

describe('the calendar grid', () => {
  it('files a post under the day of the user time zone', () => {
    expect(dayKey('2027-01-15T23:30:00Z', 'Asia/Tokyo')).toBe('2027-01-16');
    expect(dayKey('2027-01-15T23:30:00Z', 'America/New_York')).toBe('2027-01-15');
    const days = byDay(
      [{ at: '2027-01-15T23:30:00Z' }, { at: null }, { at: '2027-01-16T01:00:00Z' }],
      (p) => p.at,
      'Asia/Tokyo',
    );
    expect([...days.keys()]).toEqual(['2027-01-16']);
    expect(days.get('2027-01-16')).toHaveLength(2);
  });

  it('makes weeks from Monday and months of whole weeks', () => {
    expect(weekDays('2027-01-15')).toEqual([
      '2027-01-11',
      '2027-01-12',
      '2027-01-13',
      '2027-01-14',
      '2027-01-15',
      '2027-01-16',
      '2027-01-17',
    ]);
    expect(weekDays('2027-01-17')[0]).toBe('2027-01-11');
    const february = monthWeeks('2027-02-10');
    expect(february[0]![0]).toBe('2027-02-01');
    expect(february).toHaveLength(4);
    const march = monthWeeks('2027-03-31');
    expect(march[0]![0]).toBe('2027-03-01');
    expect(march.at(-1)!.at(-1)).toBe('2027-04-04');
    expect(shiftMonth('2027-01-31', 1)).toBe('2027-02-01');
    expect(shiftMonth('2027-01-31', -1)).toBe('2026-12-01');
  });
});

import { addSlot, queueFieldOf, removeSlot, slotsByDay, sortSlots } from './queue-slots.ts';

describe('the queue page’s weekly slots', () => {
  it('orders slots Monday first, then by time', () => {
    expect(
      sortSlots([
        { day: 'sun', time: '08:00' },
        { day: 'mon', time: '17:30' },
        { day: 'mon', time: '09:00' },
      ]),
    ).toEqual([
      { day: 'mon', time: '09:00' },
      { day: 'mon', time: '17:30' },
      { day: 'sun', time: '08:00' },
    ]);
  });

  it('adds a slot in order and refuses a repeat or a time that is not HH:MM', () => {
    const slots = [{ day: 'tue' as const, time: '10:00' }];
    expect(addSlot(slots, { day: 'mon', time: '12:00' })).toEqual({
      slots: [
        { day: 'mon', time: '12:00' },
        { day: 'tue', time: '10:00' },
      ],
    });
    expect(addSlot(slots, { day: 'tue', time: '10:00' })).toEqual({
      problem: 'That day and time is already in the queue.',
    });
    expect(addSlot(slots, { day: 'tue', time: '' })).toEqual({ problem: 'Choose a time.' });
    expect(removeSlot(slots, { day: 'tue', time: '10:00' })).toEqual([]);
  });

  it('shows the days that have times, each with its times in order', () => {
    expect(
      slotsByDay([
        { day: 'fri', time: '18:00' },
        { day: 'wed', time: '09:00' },
        { day: 'fri', time: '08:00' },
      ]),
    ).toEqual([
      { day: 'wed', label: 'Wednesday', times: ['09:00'] },
      { day: 'fri', label: 'Friday', times: ['08:00', '18:00'] },
    ]);
  });

  it('places the API’s problems next to the time zone or the slots', () => {
    expect(queueFieldOf('/body/timezone')).toBe('timezone');
    expect(queueFieldOf('/body/slots/1/time')).toBe('slots');
    expect(queueFieldOf(undefined)).toBe('slots');
  });
});

export { canonicalTimeZone, instantOf, offsetAt, wallClockAt, type WallClock } from './time-zone.ts';
export {
  WEEKDAYS,
  isWeekday,
  minutesOf,
  nextOccurrences,
  weeklyOccurrences,
  type Weekday,
  type WeeklySchedule,
  type WeeklySlot,
} from './weekly.ts';
export { dayProblem, timeProblem, timeZoneProblem, weeklyScheduleProblems, type ScheduleProblem } from './validate.ts';

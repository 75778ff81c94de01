import { UsageError } from '../errors.ts';
import { parseAt } from './post-body.ts';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Day = (typeof DAYS)[number];
const isDay = (value: string): value is Day => (DAYS as readonly string[]).includes(value);
const REPEAT = /^([a-z]{3}(?:,[a-z]{3})*)@(([01]\d|2[0-3]):[0-5]\d)$/;

export interface RecurrenceRule {
  freq: 'weekly';
  days: Day[];
  time: string;
  timezone: string;
  until?: string;
  count?: number;
}

export interface RepeatOptions {
  repeat?: string;
  timezone?: string;
  until?: string;
  count?: number;
}

/** The machine's IANA zone, the default of `--timezone` (printed, since it is a guess about the reader). */
export const machineTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * `--repeat mon,wed,fri@09:00` (days, then the wall-clock time in `--timezone`) with `--until <time>`
 * or `--count <n>` as the API's `recurrence` (docs/api-recurring.md). Undefined without `--repeat`;
 * the rule's other checks (the zone exists, `until` ahead) are the API's, which names each problem.
 */
export function recurrenceOf(options: RepeatOptions, defaultZone: string): RecurrenceRule | undefined {
  if (options.repeat === undefined) {
    const stray = (['timezone', 'until', 'count'] as const).find((name) => options[name] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} goes with --repeat`);
    return undefined;
  }
  const match = REPEAT.exec(options.repeat.trim().toLowerCase());
  const days = (match?.[1] ?? '').split(',');
  if (match === null || !days.every(isDay))
    throw new UsageError(
      `--repeat ${JSON.stringify(options.repeat)} is not days@HH:MM: write e.g. mon,wed,fri@09:00 (days mon..sun, a 24-hour time)`,
    );
  if (options.until !== undefined && options.count !== undefined)
    throw new UsageError('--until and --count exclude each other');
  return {
    freq: 'weekly',
    days: [...new Set(days)],
    time: match[2]!,
    timezone: options.timezone ?? defaultZone,
    ...(options.until === undefined ? {} : { until: parseAt(options.until, '--until') }),
    ...(options.count === undefined ? {} : { count: options.count }),
  };
}

/** `every mon, wed, fri at 09:00 Europe/Berlin, 4 times`: the rule in a line. */
export function describeRule(rule: RecurrenceRule): string {
  const end =
    rule.count !== undefined ? `, ${rule.count} times` : rule.until !== undefined ? `, until ${rule.until}` : '';
  return `every ${rule.days.join(', ')} at ${rule.time} ${rule.timezone}${end}`;
}

import { createHash } from 'node:crypto';
import type { RecurrenceRuleType } from '@svc/contracts';
import { canonicalTimeZone, dayProblem, timeProblem, timeZoneProblem, weeklyOccurrences } from '@svc/calendar';
import type { WeeklySchedule } from '@svc/calendar';
import type { ErrorDetail } from '@svc/errors';

type Problem = ErrorDetail & { path: string; rule: string };

const PREFIX = '/body/recurrence';

/** What a recurrence is created with, besides its rule: a time of its own or a draft refuse it. */
export interface RecurrenceCompanions {
  scheduledAt?: string | undefined;
  queue?: boolean | undefined;
  draft?: boolean | undefined;
}

/**
 * Every problem of a recurrence and of what it comes with: its days, time and zone (the calendar's
 * rules), `until` and `count` together, `until` not ahead, a create that also asks for a time of its
 * own (`scheduled_at`, `queue`) or is a draft (it has no time until published), and no time of the
 * rule from `from` (now plus the minimum lead) before `until`. Create refuses with these and
 * validate lists them, so the two cannot drift. `first` is the rule's first time when there is no
 * problem.
 */
export function checkRecurrence(
  rule: RecurrenceRuleType,
  request: RecurrenceCompanions,
  now: Date,
  from: Date,
): { problems: Problem[]; first: Date | undefined } {
  const problems: Problem[] = [];
  const push = (problem: { path: string; rule: string; message: string } | null) =>
    problem !== null && problems.push({ ...problem });
  push(timeZoneProblem(rule.timezone, `${PREFIX}/timezone`));
  rule.days.forEach((day, index) => push(dayProblem(day, `${PREFIX}/days/${index}`)));
  push(timeProblem(rule.time, `${PREFIX}/time`));
  if (rule.until !== undefined && rule.count !== undefined)
    push({ path: `${PREFIX}/count`, rule: 'until_with_count', message: 'give either until or count, not both' });
  if (rule.until !== undefined && !(Date.parse(rule.until) > now.getTime()))
    push({ path: `${PREFIX}/until`, rule: 'until_not_future', message: 'must lie in the future' });
  if (request.scheduledAt !== undefined)
    push({
      path: `${PREFIX}`,
      rule: 'recurrence_with_scheduled_at',
      message: 'cannot be combined with scheduled_at: a recurring post takes its times from its rule',
    });
  if (request.queue === true)
    push({
      path: `${PREFIX}`,
      rule: 'recurrence_with_queue',
      message: 'cannot be combined with queue: a recurring post takes its times from its rule',
    });
  // A draft has no time until it is published, so it cannot repeat on a rule.
  if (request.draft === true)
    push({ path: `${PREFIX}`, rule: 'recurrence_with_draft', message: 'cannot be combined with draft' });
  if (problems.length > 0) return { problems, first: undefined };
  const [first] = occurrencesAfter(normalizedRule(rule), from, { end: null, limit: 1, alreadyCreated: 0 });
  if (first === undefined)
    push({ path: `${PREFIX}/until`, rule: 'until_before_first', message: 'no time of the rule falls before it' });
  return { problems, first };
}

/** The rule as stored: its zone in canonical spelling, each day once. */
export function normalizedRule(rule: RecurrenceRuleType): RecurrenceRuleType {
  return { ...rule, timezone: canonicalTimeZone(rule.timezone) ?? rule.timezone, days: [...new Set(rule.days)] };
}

/** Calendar days looked at for one call: a weekly rule has a time in every 7, so this finds the next ones. */
const LOOKAHEAD_DAYS = 8;

/**
 * The rule's times after `after` (exclusive), ascending, up to `limit` and until `end` (inclusive),
 * never past `until`; `alreadyCreated` counts against `count`.
 */
export function occurrencesAfter(
  rule: RecurrenceRuleType,
  after: Date,
  { end, limit, alreadyCreated }: { end: Date | null; limit: number; alreadyCreated: number },
): Date[] {
  const left = rule.count === undefined ? limit : Math.min(limit, rule.count - alreadyCreated);
  const until = rule.until === undefined ? Number.POSITIVE_INFINITY : Date.parse(rule.until);
  const last = Math.min(until, end === null ? Number.POSITIVE_INFINITY : end.getTime());
  const schedule: WeeklySchedule = {
    timezone: rule.timezone,
    // Validated before it was stored: days are the calendar's.
    slots: rule.days.map((day) => ({ day, time: rule.time }) as WeeklySchedule['slots'][number]),
  };
  const found: Date[] = [];
  let from = after;
  while (found.length < left) {
    let any = false;
    for (const at of weeklyOccurrences(schedule, from, LOOKAHEAD_DAYS)) {
      if (at.getTime() > last || found.length >= left) return found;
      found.push(at);
      from = at;
      any = true;
    }
    if (!any) return found;
  }
  return found;
}

/**
 * The job id of the occurrence of `recurrenceId` at `at`: a name-based UUID (SHA-1, version 5
 * layout), so every process that creates this occurrence names it the same and the jobs table's key
 * keeps one.
 */
export function occurrenceId(recurrenceId: string, at: Date): string {
  const hash = createHash('sha1').update(`${recurrenceId}/${at.toISOString()}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

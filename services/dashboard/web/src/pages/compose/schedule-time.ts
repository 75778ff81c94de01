// Scheduled times are entered and shown in the user's time zone and sent to the API in UTC.

const parts = (timestamp: number, timeZone: string) => {
  const fields = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(timestamp);
  const get = (type: string) => Number(fields.find((part) => part.type === type)?.value);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
};

/** Minutes the zone is ahead of UTC at that instant (e.g. 60 for Paris in winter). */
export function zoneOffsetMinutes(timestamp: number, timeZone: string): number {
  const p = parts(timestamp, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(timestamp / 1000) * 1000) / 60_000);
}

/**
 * A wall-clock time `YYYY-MM-DDTHH:MM` (a datetime-local input's value) in `timeZone` as an instant.
 * A time skipped by a DST change moves forward by the gap; a repeated one takes its first occurrence.
 */
export function wallTimeToUtc(wall: string, timeZone: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(wall);
  if (match === null) throw new RangeError(`not a date and time: ${wall}`);
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  const naive = Date.UTC(y, mo - 1, d, h, mi);
  // The zone's offsets a day either side bracket any change: each gives a candidate instant.
  const before = naive - zoneOffsetMinutes(naive - 86_400_000, timeZone) * 60_000;
  const after = naive - zoneOffsetMinutes(naive + 86_400_000, timeZone) * 60_000;
  const valid = [before, after].filter((t) => utcToWallTime(new Date(t), timeZone) === wall);
  // Both valid: a repeated hour, the first occurrence. Neither: a skipped hour, the offset from
  // before the change, which lands the gap's length later.
  return new Date(valid.length === 0 ? before : Math.min(...valid));
}

/** An instant as the `YYYY-MM-DDTHH:MM` a datetime-local input shows in `timeZone`. */
export function utcToWallTime(instant: Date, timeZone: string): string {
  const p = parts(instant.getTime(), timeZone);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}

/** Why a scheduled time cannot be used, or null: it must be in the future. */
export function scheduleProblem(wall: string, timeZone: string, now: Date): string | null {
  if (wall === '') return 'Choose a date and time.';
  const at = wallTimeToUtc(wall, timeZone);
  return at.getTime() <= now.getTime() ? 'Choose a time in the future.' : null;
}

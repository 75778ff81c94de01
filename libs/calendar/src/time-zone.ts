/**
 * Wall clocks of IANA time zones through the runtime's own time zone data (Intl, ICU), so the rules
 * stay those of the Node release that runs the code; nothing here holds a table of its own.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A zone name as ICU spells it (`europe/berlin` -> `Europe/Berlin`), or null when the runtime does not know it. */
export function canonicalTimeZone(name: string): string | null {
  // Intl also takes forms that are not zone names on some releases (offsets such as "+01:00"); an API
  // field named `timezone` holds an IANA name only.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** A calendar date and a time of day, as a clock on the wall of some zone shows them. */
export interface WallClock {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** What the zone's clocks show at `instantMs` (seconds dropped). */
export function wallClockAt(timeZone: string, instantMs: number): WallClock & { second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instantMs)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The zone's offset from UTC at `instantMs`, in milliseconds (local minus UTC). */
export function offsetAt(timeZone: string, instantMs: number): number {
  const wall = wallClockAt(timeZone, instantMs);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(instantMs / 1000) * 1000;
}

// No zone's offset leaves [-14 h, +14 h]: the instant a wall clock names lies within 14 h of the
// same digits read as UTC, so the offsets in force 30 h either side cover every candidate.
const AROUND_MS = 30 * 3600 * 1000;

/**
 * The instant at which the zone's clocks show `wall`. A time the clocks skip (spring forward) is
 * moved forward by the jump (02:30 on a day Berlin goes 02:00 -> 03:00 is 03:30 CEST); a time they
 * show twice (fall back) is its first occurrence.
 */
export function instantOf(timeZone: string, wall: WallClock): number {
  const digits = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const before = offsetAt(timeZone, digits - AROUND_MS);
  const after = offsetAt(timeZone, digits + AROUND_MS);
  const candidates = [...new Set([before, after, offsetAt(timeZone, digits)])]
    .map((offset) => digits - offset)
    .filter((instant) => offsetAt(timeZone, instant) === digits - instant)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first !== undefined) return first;
  // In the gap: read with the offset in force before the jump, the instant shows `wall` plus the jump.
  return digits - before;
}

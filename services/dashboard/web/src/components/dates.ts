/** The browser's IANA time zone (what scheduled times are shown and entered in). */
export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A timestamp as the user reads it, in their time zone, with the zone named. */
export function formatDateTime(iso: string | null | undefined, timeZone = userTimeZone()): string {
  if (iso === null || iso === undefined) return '—';
  // dateStyle and timeStyle cannot be combined with timeZoneName: the fields are named one by one.
  return new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(iso));
}

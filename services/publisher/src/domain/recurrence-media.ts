import type { RecurrenceRuleType } from '@svc/contracts';
import { uncancelledRecurrencesUsingMedia } from '../data/recurrences.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { occurrencesAfter } from './recurrence-rule.ts';

/**
 * The id of the organization's first recurrence that will still post the media: not cancelled, with
 * a time of its rule not created yet (one whose `until` or `count` is used up no longer needs it).
 * Null when none does.
 */
export async function recurrenceUsingMedia(db: PrismaClient, orgId: string, mediaId: string): Promise<string | null> {
  for (const row of await uncancelledRecurrencesUsingMedia(db, orgId, mediaId)) {
    const rule = row.rule as unknown as RecurrenceRuleType;
    const after = row.lastOccurrenceAt ?? row.createdAt;
    if (occurrencesAfter(rule, after, { end: null, limit: 1, alreadyCreated: row.occurrencesCreated }).length > 0)
      return row.id;
  }
  return null;
}

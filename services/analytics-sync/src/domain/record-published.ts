import { processOnce, type TransactionalClient } from '@svc/db';
import { AppError } from '@svc/errors';
import type { Envelope, PayloadOf, postPublished } from '@svc/contracts';
import type { AnalyticsRepository, NewRow } from '../data/analytics.repository.ts';

const CONSUMER = 'analytics-sync.post-published';

/**
 * A job delivered to at least one account: one `pending` row per published target, due for its first
 * background read `firstReadDelayMs` after the event (0 when absent: at once). The delay lets one
 * lookup read a burst of an account's posts (X reads 100 ids a call) instead of one call per post,
 * and a post's numbers barely move in its first minute; a read of the list refreshes pending rows
 * whenever it comes. Idempotent twice over: the inbox skips a redelivered message, and the (org, post,
 * account) key ignores a row that exists (a replayed or re-sent event).
 */
export async function recordPublished(deps: { db: TransactionalClient; repo: AnalyticsRepository; wake: (delayMs: number) => void; firstReadDelayMs?: number }, envelope: Envelope<PayloadOf<typeof postPublished>>): Promise<void> {
  const orgId = envelope.org_id;
  // Not retryable: parked for an operator, since a post event without its organization cannot be placed.
  if (orgId === null) throw new AppError('validation_error', `post.published ${envelope.message_id} names no organization.`, { retryable: false });
  const recordedAt = new Date(envelope.occurred_at);
  const rows: NewRow[] = envelope.payload.results
    .filter((result) => result.status === 'published' && result.platform_post_id !== null)
    .map((result) => ({
      orgId,
      postId: envelope.payload.id,
      accountId: result.account_id,
      platform: result.provider,
      platformPostId: result.platform_post_id!,
      platformPostUrl: result.platform_post_url,
      text: envelope.payload.text,
      createdAt: recordedAt,
      publishedAt: result.published_at ? new Date(result.published_at) : null,
    }));
  if (rows.length === 0) return;
  const firstReadAt = new Date(recordedAt.getTime() + (deps.firstReadDelayMs ?? 0));
  const outcome = await processOnce(deps.db, CONSUMER, envelope.message_id, (tx) => deps.repo.insertPublished(tx, rows, firstReadAt));
  if (!outcome.duplicate && outcome.result > 0) deps.wake(Math.max(0, firstReadAt.getTime() - Date.now()));
}

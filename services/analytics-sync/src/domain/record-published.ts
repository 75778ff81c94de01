import { BatchQueue, processEachOnce, type TransactionalClient } from '@svc/db';
import { AppError } from '@svc/errors';
import type { Envelope, PayloadOf, postPublished } from '@svc/contracts';
import type { AnalyticsRepository, NewRow } from '../data/analytics.repository.ts';

const CONSUMER = 'analytics-sync.post-published';

export interface PublishedRecorderDeps {
  db: TransactionalClient;
  repo: AnalyticsRepository;
  wake: (delayMs: number) => void;
  firstReadDelayMs?: number;
  /**
   * Events recorded by one transaction at most (default 100): with `lingerMs`, the consumer's
   * prefetch, so that a full window of unacked events is recorded at once rather than waiting for
   * events the broker will not send before their acks.
   */
  maxEvents?: number;
  /** How long fewer events than that wait for more before their transaction (BatchQueue's `lingerMs`; default 0). */
  lingerMs?: number;
}

interface EventRows {
  messageId: string;
  rows: NewRow[];
}

/**
 * A job delivered to at least one account: one `pending` row per published target, due for its first
 * background read `firstReadDelayMs` after the event (0 when absent: at once). The delay lets one
 * lookup read a burst of an account's posts (X reads 100 ids a call) instead of one call per post,
 * and a post's numbers barely move in its first minute; a read of the list refreshes pending rows
 * whenever it comes. Idempotent twice over: the inbox skips a redelivered message, and the (org, post,
 * account) key ignores a row that exists (a replayed or re-sent event).
 * The events that arrive together share one transaction (group commit): one inbox insert, one lock
 * of each organization's counter and one insert of its rows, one commit. A transaction per event
 * held its organization's counter lock across its round trips, so an organization's events queued
 * on that lock one at a time: 19 ms of waiting per event with 5,000 one-account jobs
 * (docs/performance.md, "Analytics' events wait for each other"). Events that trickle in (a job of one
 * account at a time) wait `lingerMs` for others: a transaction is six round trips and a planning
 * whatever it holds, and with one or two events each they cost the accepts sharing the cores a
 * seventh of their rate (same section).
 */
export class PublishedRecorder {
  private readonly events: BatchQueue<EventRows, undefined>;

  constructor(private readonly deps: PublishedRecorderDeps) {
    // One transaction at a time: what arrives meanwhile forms the next.
    this.events = new BatchQueue((items) => this.recordTogether(items), {
      maxSize: deps.maxEvents ?? 100,
      maxInFlight: 1,
      splitOnFailure: true,
      lingerMs: deps.lingerMs ?? 0,
    });
  }

  async record(envelope: Envelope<PayloadOf<typeof postPublished>>): Promise<void> {
    const orgId = envelope.org_id;
    // Not retryable: parked for an operator, since a post event without its organization cannot be placed.
    if (orgId === null)
      throw new AppError('validation_error', `post.published ${envelope.message_id} names no organization.`, {
        retryable: false,
      });
    const recordedAt = new Date(envelope.occurred_at);
    const nextSyncAt = new Date(recordedAt.getTime() + (this.deps.firstReadDelayMs ?? 0));
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
        nextSyncAt,
      }));
    if (rows.length === 0) return;
    await this.events.add({ messageId: envelope.message_id, rows });
  }

  /** One transaction for the events: the rows of those not processed before, then a wake for the earliest first read. */
  private async recordTogether(items: EventRows[]): Promise<undefined[]> {
    const { result } = await processEachOnce(
      this.deps.db,
      CONSUMER,
      items.map((item) => item.messageId),
      async (tx, fresh) => {
        const rows = items.filter((item) => fresh.has(item.messageId)).flatMap((item) => item.rows);
        return { rows, inserted: await this.deps.repo.insertPublished(tx, rows) };
      },
    );
    if (result.inserted > 0) {
      const firstRead = Math.min(...result.rows.map((row) => row.nextSyncAt.getTime()));
      this.deps.wake(Math.max(0, firstRead - Date.now()));
    }
    return items.map(() => undefined);
  }
}

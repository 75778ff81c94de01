import type { Envelope } from '@svc/contracts';
import type { Logger } from '@svc/logger';
import { pgClientSettings, type PgConnectionConfig } from './connection-config.ts';
import { pg } from './prisma-bridge.ts';
import type { RawSql } from './raw-sql.ts';
import type { TraceCarrier } from '@svc/tracing';

export interface EnvelopePublisher {
  /**
   * Resolves only once the broker confirmed the message; rejects on nack, return or disconnect.
   * `trace`: the W3C context stored with the row (null: none), which the publish continues.
   */
  publishEnvelope(envelope: Envelope, trace: TraceCarrier | null): Promise<void>;
}

/** Why a message stopped being relayed: refused past the budget, or never publishable at all. */
export type ParkReason = 'attempts_exhausted' | 'unpublishable';

export interface OutboxRelayOptions {
  db: RawSql;
  publisher: EnvelopePublisher;
  logger: Logger;
  /** When given, the relay LISTENs for commits and relays at once; polling stays as the backstop. */
  listenConnection?: PgConnectionConfig;
  pollIntervalMs?: number;
  batchSize?: number;
  /** A claimed row is reclaimable after this long, in case the relay that claimed it died. */
  claimTimeoutMs?: number;
  /**
   * Publishes the broker answered and refused (unroutable, nacked) allowed per message before it is
   * parked. Failures while the broker is unreachable do not count: an outage parks nothing.
   */
  maxAttempts?: number;
  /** Called once per parked message (metrics). */
  onParked?: (type: string, reason: ParkReason) => void;
}

interface ClaimedRow {
  id: string;
  envelope: Envelope;
  attempts: number;
  trace_context: TraceCarrier | null;
}

const MAX_BACKOFF_MS = 60_000;

/**
 * The relay's claim ($1 rows, locked for $2 seconds), in two scans of the claim index
 * `(attempts, available_at)`. First the never-tried rows, due order: a range scan that ends at the
 * first row not yet due, so delayed commands (lookups, deferrals, later schedules) are never walked.
 * Then, only if the batch has room, the retries, least-tried first (only they are walked whole, and
 * only while the broker refuses something). A claim changes no indexed column (`attempts` counts
 * refusals and is raised only when one is settled), so it adds no index entry: a published row
 * leaves one dead entry behind, not two (docs/performance.md, "The outbox relay"). `attempts` is
 * returned as this try's number.
 */
export const CLAIM_SQL = `
  WITH fresh AS (
    SELECT id FROM outbox_messages
     WHERE attempts = 0 AND available_at <= now() AND published_at IS NULL AND parked_at IS NULL
       AND (locked_until IS NULL OR locked_until < now())
     ORDER BY available_at
     FOR UPDATE SKIP LOCKED
     LIMIT $1),
  retried AS (
    SELECT id FROM outbox_messages
     WHERE attempts > 0 AND available_at <= now() AND published_at IS NULL AND parked_at IS NULL
       AND (locked_until IS NULL OR locked_until < now())
     ORDER BY attempts, available_at
     FOR UPDATE SKIP LOCKED
     LIMIT (SELECT $1 - count(*) FROM fresh)),
  batch AS (SELECT id FROM fresh UNION ALL SELECT id FROM retried)
  UPDATE outbox_messages o SET locked_until = now() + make_interval(secs => $2::float8)
    FROM batch WHERE o.id = batch.id
  RETURNING o.id::text AS id, o.envelope, o.attempts + 1 AS attempts, o.trace_context`;

/**
 * Session settings for the connections the relay runs on. After an autoanalyze of a table that churns
 * this fast, the planner can take the claim for a bitmap scan of a few rows: a bitmap scan reads every
 * entry in the range, dead ones included, and never marks them dead for the next scan, so each claim
 * read thousands of entries until the next vacuum (the soak: 18 entries per claim, then 200 -> 4,250
 * within each minute after the plan flipped, docs/performance.md). With bitmap and sequential scans
 * priced out, the claim walks the index in order (killing the dead entries it passes) and the claimed
 * rows are found by primary key. Every statement of the relay is one of those two shapes.
 */
export const RELAY_SESSION_SETTINGS: Readonly<Record<string, string>> = {
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
};

type FailureKind = 'unpublishable' | 'refused' | 'outage';

/**
 * Duck-typed so libs/db needs no messaging import: the broker's PublishError carries `reason`
 * (unroutable, nacked: the broker answered), and an unknown type or invalid payload is a
 * `validation_error`, which no retry will ever fix.
 */
function classify(error: unknown): FailureKind {
  const { code, reason } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    reason?: unknown;
  };
  if (code === 'validation_error') return 'unpublishable';
  if (reason === 'unroutable' || reason === 'nacked') return 'refused';
  return 'outage';
}

/**
 * Moves committed outbox rows to RabbitMQ. Rows are claimed with FOR UPDATE SKIP LOCKED (never a
 * "position > last seen" cursor, which skips rows whose transactions commit out of order), published
 * with confirms, then marked. Any number of relays may run against one database.
 */
export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly claimTimeoutMs: number;
  private readonly maxAttempts: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /**
   * Set by wake() and cleared when a pass starts: a commit announced while a batch is being relayed
   * makes the next sleep end at once, instead of waiting out the poll interval (each hop of the
   * pipeline, scheduler -> publisher -> deliveries, once added up to a second that way).
   */
  private wakePending = false;
  private listener: InstanceType<typeof pg.Client> | undefined;
  private lastPrune = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 100;
    this.claimTimeoutMs = options.claimTimeoutMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 20;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.options.listenConnection !== undefined) await this.listen(this.options.listenConnection);
    this.loop = this.run();
  }

  /** Relays at once instead of at the next poll. */
  wake(): void {
    this.wakePending = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * Claims and relays one batch; returns how many rows were claimed. Never-tried rows are claimed
   * first, in due order, so a pile of rows the broker keeps refusing cannot starve fresh ones; among
   * retries, the least-tried go first (`CLAIM_SQL`). Failures are settled in two statements per
   * batch, whatever their number, and logged once per batch.
   */
  async relayBatch(): Promise<number> {
    const rows = await this.options.db.$queryRawUnsafe<ClaimedRow[]>(
      CLAIM_SQL,
      this.batchSize,
      this.claimTimeoutMs / 1000,
    );
    if (rows.length === 0) return 0;
    const outcomes = await Promise.allSettled(
      rows.map((row) => this.options.publisher.publishEnvelope(row.envelope, row.trace_context)),
    );
    const published: string[] = [];
    const retry: { id: string; error: string; delayMs: number; counted: boolean }[] = [];
    const parked: { row: ClaimedRow; error: string; reason: ParkReason }[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const row = rows[index];
      if (row === undefined) continue;
      if (outcome.status === 'fulfilled') {
        published.push(row.id);
        continue;
      }
      const error = (outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)).slice(0, 1000);
      const kind = classify(outcome.reason);
      if (kind === 'unpublishable') parked.push({ row, error, reason: 'unpublishable' });
      else if (kind === 'refused' && row.attempts >= this.maxAttempts)
        parked.push({ row, error, reason: 'attempts_exhausted' });
      else
        retry.push({
          id: row.id,
          error,
          delayMs: Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(row.attempts, 10)),
          counted: kind === 'refused',
        });
    }
    // Deleted, not marked: kept rows would grow the table without end (72 h of history was millions
    // of rows at the target rate) and leave dead entries at the head of the claim index, which every
    // claim walked until a vacuum that a large table rarely gets (docs/performance.md, "The outbox relay").
    if (published.length > 0)
      await this.options.db.$executeRawUnsafe('DELETE FROM outbox_messages WHERE id = ANY($1::uuid[])', published);
    if (retry.length > 0) await this.scheduleRetries(retry);
    if (parked.length > 0) await this.park(parked);
    return rows.length;
  }

  /** How many rows are parked (a gauge; scripts/outbox-parked.mjs lists and requeues them). */
  async parkedCount(): Promise<number> {
    const [row] = await this.options.db.$queryRawUnsafe<{ count: bigint | number }[]>(
      'SELECT count(*) AS count FROM outbox_messages WHERE parked_at IS NOT NULL AND published_at IS NULL',
    );
    return Number(row?.count ?? 0);
  }

  private async scheduleRetries(
    retry: { id: string; error: string; delayMs: number; counted: boolean }[],
  ): Promise<void> {
    // An outage (broker unreachable) does not spend the message's budget; a refusal does.
    await this.options.db.$executeRawUnsafe(
      `UPDATE outbox_messages o
          SET locked_until = NULL, last_error = r.error,
              available_at = now() + make_interval(secs => r.delay_ms / 1000.0),
              attempts = o.attempts + CASE WHEN r.counted THEN 1 ELSE 0 END
         FROM unnest($1::uuid[], $2::text[], $3::float8[], $4::boolean[]) AS r(id, error, delay_ms, counted)
        WHERE o.id = r.id`,
      retry.map((entry) => entry.id),
      retry.map((entry) => entry.error),
      retry.map((entry) => entry.delayMs),
      retry.map((entry) => entry.counted),
    );
    const first = retry[0]!;
    this.options.logger.warn(
      {
        failed: retry.length,
        refused: retry.filter((entry) => entry.counted).length,
        first_message_id: first.id,
        err: first.error,
      },
      'outbox publishes failed; will retry',
    );
  }

  private async park(parked: { row: ClaimedRow; error: string; reason: ParkReason }[]): Promise<void> {
    await this.options.db.$executeRawUnsafe(
      `UPDATE outbox_messages o SET parked_at = now(), locked_until = NULL, last_error = r.error, attempts = o.attempts + 1
         FROM unnest($1::uuid[], $2::text[]) AS r(id, error) WHERE o.id = r.id`,
      parked.map((entry) => entry.row.id),
      parked.map((entry) => entry.error),
    );
    for (const { row, error, reason } of parked) {
      this.options.logger.error(
        { message_id: row.id, type: row.envelope.type, attempts: row.attempts, reason, err: error },
        'outbox message parked',
      );
      this.options.onParked?.(row.envelope.type, reason);
    }
  }

  /** Rows still to publish, parked ones excluded (for metrics and readiness). */
  async backlog(): Promise<number> {
    const [row] = await this.options.db.$queryRawUnsafe<{ count: bigint | number }[]>(
      'SELECT count(*) AS count FROM outbox_messages WHERE published_at IS NULL AND parked_at IS NULL',
    );
    return Number(row?.count ?? 0);
  }

  /**
   * Seconds since the oldest row still to publish was written, parked ones excluded; 0 when none. A
   * relay that keeps up holds rows for milliseconds, so minutes mean the relay or the broker is stuck.
   */
  async oldestPendingAgeSeconds(): Promise<number> {
    const [row] = await this.options.db.$queryRawUnsafe<{ age: string | number | null }[]>(
      `SELECT EXTRACT(EPOCH FROM now() - min(created_at)) AS age
         FROM outbox_messages WHERE published_at IS NULL AND parked_at IS NULL`,
    );
    return Math.max(0, Number(row?.age ?? 0));
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      this.wakePending = false;
      try {
        claimed = await this.relayBatch();
        await this.pruneIfDue();
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed');
      }
      if (claimed < this.batchSize) await this.sleep(this.pollIntervalMs);
    }
  }

  /** Rows a relay of an earlier version marked published instead of deleting (during a rolling deploy). */
  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < 60_000) return;
    this.lastPrune = Date.now();
    await this.options.db.$executeRawUnsafe('DELETE FROM outbox_messages WHERE published_at IS NOT NULL');
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakePending) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async listen(connection: PgConnectionConfig): Promise<void> {
    const client = new pg.Client(pgClientSettings(connection, 'listen'));
    // A lost LISTEN connection only costs latency: polling still relays everything.
    client.on('error', (error) =>
      this.options.logger.warn({ err: error }, 'outbox LISTEN connection lost; polling only'),
    );
    client.on('notification', () => this.wake());
    await client.connect();
    await client.query('LISTEN outbox_messages');
    this.listener = client;
  }
}

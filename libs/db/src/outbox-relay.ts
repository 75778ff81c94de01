import type { Envelope } from '@svc/contracts';
import type { Logger } from '@svc/logger';
import type { PgConnectionConfig } from './connection-config.ts';
import { pg } from './prisma-bridge.ts';
import type { RawSql } from './raw-sql.ts';

export interface EnvelopePublisher {
  /** Resolves only once the broker confirmed the message; rejects on nack, return or disconnect. */
  publishEnvelope(envelope: Envelope): Promise<void>;
}

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
  /** Published rows are kept this long for inspection, then deleted. */
  retentionHours?: number;
}

interface ClaimedRow {
  id: string;
  envelope: Envelope;
  attempts: number;
}

const MAX_BACKOFF_MS = 60_000;

/**
 * Moves committed outbox rows to RabbitMQ. Rows are claimed with FOR UPDATE SKIP LOCKED (never a
 * "position > last seen" cursor, which skips rows whose transactions commit out of order), published
 * with confirms, then marked. Any number of relays may run against one database.
 */
export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly claimTimeoutMs: number;
  private readonly retentionHours: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private listener: InstanceType<typeof pg.Client> | undefined;
  private lastPrune = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 100;
    this.claimTimeoutMs = options.claimTimeoutMs ?? 30_000;
    this.retentionHours = options.retentionHours ?? 72;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.options.listenConnection !== undefined) await this.listen(this.options.listenConnection);
    this.loop = this.run();
  }

  /** Relays at once instead of at the next poll. */
  wake(): void {
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

  /** Claims and relays one batch; returns how many rows were claimed. */
  async relayBatch(): Promise<number> {
    const rows = await this.options.db.$queryRawUnsafe<ClaimedRow[]>(
      `WITH batch AS (
         SELECT id FROM outbox_messages
          WHERE published_at IS NULL AND available_at <= now()
            AND (locked_until IS NULL OR locked_until < now())
          ORDER BY created_at, id
          FOR UPDATE SKIP LOCKED
          LIMIT $1)
       UPDATE outbox_messages o
          SET attempts = o.attempts + 1, locked_until = now() + make_interval(secs => $2::float8)
         FROM batch WHERE o.id = batch.id
       RETURNING o.id::text AS id, o.envelope, o.attempts`,
      this.batchSize,
      this.claimTimeoutMs / 1000,
    );
    if (rows.length === 0) return 0;
    const outcomes = await Promise.allSettled(rows.map((row) => this.options.publisher.publishEnvelope(row.envelope)));
    const published: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const row = rows[index];
      if (row === undefined) continue;
      if (outcome.status === 'fulfilled') {
        published.push(row.id);
        continue;
      }
      const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      const delayMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(row.attempts, 10));
      this.options.logger.warn({ message_id: row.id, type: row.envelope.type, attempts: row.attempts, err: reason }, 'outbox publish failed; will retry');
      await this.options.db.$executeRawUnsafe(
        `UPDATE outbox_messages SET locked_until = NULL, last_error = $2,
                available_at = now() + make_interval(secs => $3::float8) WHERE id = $1::uuid`,
        row.id,
        reason.slice(0, 1000),
        delayMs / 1000,
      );
    }
    if (published.length > 0) {
      await this.options.db.$executeRawUnsafe(
        'UPDATE outbox_messages SET published_at = now(), locked_until = NULL, last_error = NULL WHERE id = ANY($1::uuid[])',
        published,
      );
    }
    return rows.length;
  }

  /** Rows not yet published (for metrics and readiness). */
  async backlog(): Promise<number> {
    const [row] = await this.options.db.$queryRawUnsafe<{ count: bigint | number }[]>(
      'SELECT count(*) AS count FROM outbox_messages WHERE published_at IS NULL',
    );
    return Number(row?.count ?? 0);
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.relayBatch();
        await this.pruneIfDue();
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed');
      }
      if (claimed < this.batchSize) await this.sleep(this.pollIntervalMs);
    }
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < 60_000) return;
    this.lastPrune = Date.now();
    await this.options.db.$executeRawUnsafe(
      'DELETE FROM outbox_messages WHERE published_at < now() - make_interval(hours => $1::int)',
      this.retentionHours,
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async listen(connection: PgConnectionConfig): Promise<void> {
    const { host, port, user, password, database } = connection;
    const client = new pg.Client({ host, port, user, database, ...(password === undefined ? {} : { password }) });
    // A lost LISTEN connection only costs latency: polling still relays everything.
    client.on('error', (error) => this.options.logger.warn({ err: error }, 'outbox LISTEN connection lost; polling only'));
    client.on('notification', () => this.wake());
    await client.connect();
    await client.query('LISTEN outbox_messages');
    this.listener = client;
  }
}

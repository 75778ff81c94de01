import { randomUUID } from 'node:crypto';
import type { RawSql } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';

export type SyncStatus = 'synced' | 'partial' | 'pending' | 'failed' | 'requires_reconnect';

/** A cached row as the domain sees it (no Prisma types leave this module). */
export interface AnalyticsRecord {
  id: string;
  orgId: string;
  postId: string;
  accountId: string;
  platform: string;
  platformPostId: string;
  platformPostUrl: string | null;
  text: string | null;
  createdAt: Date;
  publishedAt: Date | null;
  metrics: Record<string, number>;
  warnings: string[];
  syncStatus: SyncStatus;
  errorMessage: string | null;
  lastUpdatedAt: Date | null;
  staleAfter: Date | null;
  nextSyncAt: Date;
}

export interface NewRow {
  orgId: string;
  postId: string;
  accountId: string;
  platform: string;
  platformPostId: string;
  platformPostUrl: string | null;
  text: string;
  createdAt: Date;
  publishedAt: Date | null;
}

export interface RowFilters {
  postId?: string | undefined;
  accountId?: string | undefined;
  platform?: string | undefined;
  fromDate?: Date | undefined;
  toDate?: Date | undefined;
}

/** What one refresh learned about a row; `nextSyncAt` is the background's next look at it. */
export interface RowUpdate {
  syncStatus: SyncStatus;
  metrics?: Record<string, number>;
  warnings: string[];
  errorMessage: string | null;
  lastUpdatedAt?: Date;
  staleAfter?: Date | null;
  nextSyncAt: Date;
}

interface DbRow {
  id: string;
  org_id: string;
  post_id: string;
  account_id: string;
  platform: string;
  platform_post_id: string;
  platform_post_url: string | null;
  text: string | null;
  created_at: Date;
  published_at: Date | null;
  metrics: Record<string, number>;
  warnings: string[];
  sync_status: SyncStatus;
  error_message: string | null;
  last_updated_at: Date | null;
  stale_after: Date | null;
  next_sync_at: Date;
}

const COLUMNS = `id, org_id, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at,
  metrics, warnings, sync_status, error_message, last_updated_at, stale_after, next_sync_at`;

const toRecord = (row: DbRow): AnalyticsRecord => ({
  id: row.id,
  orgId: row.org_id,
  postId: row.post_id,
  accountId: row.account_id,
  platform: row.platform,
  platformPostId: row.platform_post_id,
  platformPostUrl: row.platform_post_url,
  text: row.text,
  createdAt: row.created_at,
  publishedAt: row.published_at,
  metrics: row.metrics,
  warnings: row.warnings,
  syncStatus: row.sync_status,
  errorMessage: row.error_message,
  lastUpdatedAt: row.last_updated_at,
  staleAfter: row.stale_after,
  nextSyncAt: row.next_sync_at,
});

/** The filters as one WHERE clause with numbered parameters, organization first (tenancy). */
function where(orgId: string, filters: RowFilters): { sql: string; values: unknown[] } {
  const values: unknown[] = [orgId];
  const clauses = ['org_id = $1'];
  const add = (clause: (n: number) => string, value: unknown) => {
    values.push(value);
    clauses.push(clause(values.length));
  };
  if (filters.postId !== undefined) add((n) => `(post_id = $${n} OR platform_post_id = $${n})`, filters.postId);
  if (filters.accountId !== undefined) add((n) => `account_id = $${n}`, filters.accountId);
  if (filters.platform !== undefined) add((n) => `platform = $${n}`, filters.platform);
  if (filters.fromDate !== undefined) add((n) => `created_at >= $${n}`, filters.fromDate);
  if (filters.toDate !== undefined) add((n) => `created_at <= $${n}`, filters.toDate);
  return { sql: clauses.join(' AND '), values };
}

/**
 * Cached analytics rows. Every read is scoped by organization; the list is one statement for the
 * page (a deferred join: ids from the covering index, then only the page's rows) and one count.
 */
export class AnalyticsRepository {
  constructor(private readonly db: PrismaClient) {}

  /** Rows of a post.published event; a row that exists already is left as it is (redelivery, replays). */
  async insertPublished(tx: RawSql, rows: readonly NewRow[], nextSyncAt: Date): Promise<number> {
    let inserted = 0;
    for (const row of rows) {
      inserted += await tx.$executeRawUnsafe(
        `INSERT INTO analytics_rows (id, org_id, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at, next_sync_at)
         VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (org_id, post_id, account_id) DO NOTHING`,
        randomUUID(), row.orgId, row.postId, row.accountId, row.platform, row.platformPostId, row.platformPostUrl, row.text, row.createdAt, row.publishedAt, nextSyncAt,
      );
    }
    return inserted;
  }

  async page(orgId: string, filters: RowFilters, page: number, limit: number): Promise<{ rows: AnalyticsRecord[]; total: number }> {
    const { sql, values } = where(orgId, filters);
    const offset = (page - 1) * limit;
    const [rows, count] = await Promise.all([
      this.db.$queryRawUnsafe<DbRow[]>(
        `SELECT ${COLUMNS.split(',').map((column) => `r.${column.trim()}`).join(', ')}
           FROM (SELECT id, created_at FROM analytics_rows WHERE ${sql}
                  ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}) p
           JOIN analytics_rows r ON r.id = p.id
          ORDER BY p.created_at DESC, p.id DESC`,
        ...values,
      ),
      this.db.$queryRawUnsafe<{ total: bigint }[]>(`SELECT count(*) AS total FROM analytics_rows WHERE ${sql}`, ...values),
    ]);
    return { rows: rows.map(toRecord), total: Number(count[0]?.total ?? 0) };
  }

  async byIds(orgId: string, ids: readonly string[]): Promise<AnalyticsRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.$queryRawUnsafe<DbRow[]>(`SELECT ${COLUMNS} FROM analytics_rows WHERE org_id = $1 AND id = ANY($2::uuid[])`, orgId, ids);
    return rows.map(toRecord);
  }

  /**
   * Claims up to `limit` rows the background should read now (accounts not paused), pushing their
   * `next_sync_at` out by `leaseMs` in the same statement so other replicas skip them.
   */
  async claimDue(now: Date, limit: number, leaseMs: number): Promise<AnalyticsRecord[]> {
    const rows = await this.db.$queryRawUnsafe<DbRow[]>(
      `UPDATE analytics_rows SET next_sync_at = $1::timestamptz + make_interval(secs => $3::float8 / 1000)
        WHERE id IN (
          SELECT r.id FROM analytics_rows r
           WHERE r.next_sync_at <= $1
             AND NOT EXISTS (SELECT 1 FROM account_pauses p WHERE p.account_id = r.account_id AND p.paused_until > $1)
           ORDER BY r.next_sync_at LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      now, limit, leaseMs,
    );
    return rows.map(toRecord);
  }

  async update(id: string, update: RowUpdate): Promise<void> {
    await this.db.$executeRawUnsafe(
      `UPDATE analytics_rows SET sync_status = $2, metrics = COALESCE($3::jsonb, metrics), warnings = $4::jsonb, error_message = $5,
              last_updated_at = COALESCE($6, last_updated_at), stale_after = CASE WHEN $7::boolean THEN $8 ELSE stale_after END, next_sync_at = $9
        WHERE id = $1::uuid`,
      id,
      update.syncStatus,
      update.metrics === undefined ? null : JSON.stringify(update.metrics),
      JSON.stringify(update.warnings),
      update.errorMessage,
      update.lastUpdatedAt ?? null,
      update.staleAfter !== undefined,
      update.staleAfter ?? null,
      update.nextSyncAt,
    );
  }

  /** Leaves an account alone until `until` (a 429, or a rate-limit window the network says is used up). */
  async pause(account: { accountId: string; orgId: string; platform: string }, until: Date, reason: string): Promise<void> {
    await this.db.$executeRawUnsafe(
      `INSERT INTO account_pauses (account_id, org_id, platform, paused_until, reason) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id) DO UPDATE SET paused_until = GREATEST(account_pauses.paused_until, EXCLUDED.paused_until), reason = EXCLUDED.reason`,
      account.accountId, account.orgId, account.platform, until, reason,
    );
  }

  /** The accounts among these that are paused at `now`, with the time each may be called again. */
  async pausedUntil(accountIds: readonly string[], now: Date): Promise<Map<string, Date>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.db.$queryRawUnsafe<{ account_id: string; paused_until: Date }[]>(
      'SELECT account_id, paused_until FROM account_pauses WHERE account_id = ANY($1::text[]) AND paused_until > $2',
      [...accountIds], now,
    );
    return new Map(rows.map((row) => [row.account_id, row.paused_until]));
  }
}

import type { RawSql, TransactionalClient } from '@svc/db';
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
}

/** What a published target brings: the record's identity and facts, before any sync, and when the background first reads it. */
export type NewRow = Pick<
  AnalyticsRecord,
  'orgId' | 'postId' | 'accountId' | 'platform' | 'platformPostId' | 'platformPostUrl' | 'createdAt' | 'publishedAt'
> & { text: string; nextSyncAt: Date };

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
}

/** A row's columns, from `analytics_rows r` joined to its readings `d` (migration 20261127040000). */
const COLUMNS = `r.id, r.org_id, r.post_id, r.account_id, r.platform, r.platform_post_id, r.platform_post_url, r.text, r.created_at, r.published_at,
  d.metrics, d.warnings, d.sync_status, d.error_message, d.last_updated_at, d.stale_after`;

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
 * Brings each account's due time forward to the earliest next read in `source` (a CTE of account_id,
 * next_sync_at): a new row or a save only ever lowers it. The accounts' rows are taken in account_id
 * order, as the claim's reschedule locks them, so the two never wait on each other in a cycle.
 */
const lowerAccountDue = (source: string) => `
  INSERT INTO analytics_account_due (account_id, next_due_at)
  SELECT account_id, min(next_sync_at) FROM ${source} GROUP BY account_id ORDER BY account_id
  ON CONFLICT (account_id) DO UPDATE SET next_due_at = EXCLUDED.next_due_at
   WHERE analytics_account_due.next_due_at > EXCLUDED.next_due_at`;

/**
 * An account of `analytics_account_due a` that no rate limit pauses at `$1`: the claim passes it over,
 * and the background's lag leaves its rows out (they wait on purpose).
 */
const NOT_PAUSED =
  'NOT EXISTS (SELECT 1 FROM account_pauses p WHERE p.account_id = a.account_id AND p.paused_until > $1)';

/**
 * Cached analytics rows: what the publish recorded (`analytics_rows`, written once) and the latest
 * reading with the next read's time (`analytics_readings`, rewritten by each refresh). Every read is
 * scoped by organization; the list is one statement for the page (a deferred join: ids from the
 * covering index, then only the page's rows) and one count.
 */
export class AnalyticsRepository {
  /**
   * `sql` runs the statements of the busy paths (the list's page and re-reads, the background's claim
   * and save): a plain pg pool in production, because the same statements through Prisma's raw path
   * cost ~50 ms for a 100-row page (docs/performance.md).
   */
  constructor(
    private readonly db: PrismaClient,
    private readonly sql: TransactionalClient = db,
  ) {}

  /**
   * Rows of post.published events, of any organizations; a row that exists already is left as it
   * is (redelivery, replays). Each organization's counter row is locked first (organizations in id
   * order, so two writers never wait on each other in a cycle), so `seq` runs 1, 2, 3... per
   * organization with no gaps, in the rows' order, and the counter always equals the number of rows.
   * Returns how many rows were new.
   */
  async insertPublished(tx: RawSql, rows: readonly NewRow[]): Promise<number> {
    const byOrg = new Map<string, NewRow[]>();
    for (const row of rows) {
      const ofOrg = byOrg.get(row.orgId);
      if (ofOrg === undefined) byOrg.set(row.orgId, [row]);
      else ofOrg.push(row);
    }
    if (byOrg.size === 0) return 0;
    // The statement below is planned for its values on every event, and looks each new row up on
    // its own (a LATERAL with LIMIT, which the planner cannot turn into a join). Planned once while
    // the table was nearly empty and kept by the connection (a generic plan, after a statement's
    // first five runs), it read the organization's rows through analytics_rows_org_id_seq_key, as
    // cheap as the key on an empty table, and then every row of the organization on each event:
    // 5,009 rows for one new row beside 5,008 (its test: record-published-plan.int.test.ts). Without
    // the LATERAL, even a fresh plan did the same: it joined the event's rows with all of the
    // organization's whenever it guessed those fewer than the 100 it assumes an event holds
    // (docs/performance.md, "Plans made on empty tables"). Set before the counters' locks, so its
    // round trip does not lengthen the time they are held.
    await tx.$executeRawUnsafe('SET LOCAL plan_cache_mode = force_custom_plan');
    let inserted = 0;
    for (const orgId of [...byOrg.keys()].sort()) inserted += await this.insertOrgRows(tx, orgId, byOrg.get(orgId)!);
    return inserted;
  }

  /** One organization's rows: its counter's lock, then one statement for every row. */
  private async insertOrgRows(tx: RawSql, orgId: string, rows: readonly NewRow[]): Promise<number> {
    const [counter] = await tx.$queryRawUnsafe<{ rows: string }[]>(
      `INSERT INTO analytics_org_counters (org_id, rows) VALUES ($1, 0)
       ON CONFLICT (org_id) DO UPDATE SET rows = analytics_org_counters.rows RETURNING rows::text`,
      orgId,
    );
    // One statement for every row (a job to 50 accounts was 50 round trips through Prisma:
    // docs/performance.md). Under the counter's lock, this statement's snapshot already holds every
    // row committed before, so the NOT EXISTS leaves no conflict and the new rows take the next seq
    // numbers in the rows' order, without a gap; the counter moves by as many.
    const input = rows.map((row, ord) => ({
      ord,
      post_id: row.postId,
      account_id: row.accountId,
      platform: row.platform,
      platform_post_id: row.platformPostId,
      platform_post_url: row.platformPostUrl,
      text: row.text,
      created_at: row.createdAt.toISOString(),
      published_at: row.publishedAt?.toISOString() ?? null,
      next_sync_at: row.nextSyncAt.toISOString(),
    }));
    const [result] = await tx.$queryRawUnsafe<{ inserted: number }[]>(
      `WITH input AS (
         SELECT DISTINCT ON (post_id, account_id) *
           FROM jsonb_to_recordset($2::jsonb) AS u(ord int, post_id text, account_id text, platform text, platform_post_id text,
                                                   platform_post_url text, text text, created_at timestamptz, published_at timestamptz,
                                                   next_sync_at timestamptz)
          ORDER BY post_id, account_id, ord
       ), fresh AS (
         SELECT i.*, row_number() OVER (ORDER BY i.ord) AS n FROM input i
           LEFT JOIN LATERAL (SELECT true AS found FROM analytics_rows r
                               WHERE r.org_id = $1 AND r.post_id = i.post_id AND r.account_id = i.account_id LIMIT 1) known ON true
          WHERE known.found IS NULL
       ), inserted AS (
         INSERT INTO analytics_rows (id, org_id, seq, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at)
         SELECT gen_random_uuid(), $1, $3::bigint + n, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at
           FROM fresh
         RETURNING id, post_id, account_id
       ), readings AS (
         INSERT INTO analytics_readings (row_id, account_id, next_sync_at)
         SELECT r.id, r.account_id, f.next_sync_at FROM inserted r JOIN fresh f ON f.post_id = r.post_id AND f.account_id = r.account_id
         RETURNING account_id, next_sync_at
       ), due AS (
         ${lowerAccountDue('readings')}
       ), counted AS (
         UPDATE analytics_org_counters SET rows = $3::bigint + (SELECT count(*) FROM inserted) WHERE org_id = $1 AND EXISTS (SELECT 1 FROM inserted)
       )
       SELECT count(*)::int AS inserted FROM inserted`,
      orgId,
      JSON.stringify(input),
      counter!.rows,
    );
    return result!.inserted;
  }

  /**
   * One page, newest recorded first. Without filters the total is the organization's counter and the
   * page is a `seq` range: both O(page size) however deep the page. With filters, the ids come from
   * the matching index with OFFSET (a deferred join: only the page's rows are read from the table)
   * and the total from a count over the same index.
   */
  async page(
    orgId: string,
    filters: RowFilters,
    page: number,
    limit: number,
  ): Promise<{ rows: AnalyticsRecord[]; total: number }> {
    const offset = (page - 1) * limit;
    if (Object.values(filters).every((value) => value === undefined)) {
      const [counter] = await this.sql.$queryRawUnsafe<{ rows: bigint }[]>(
        'SELECT rows FROM analytics_org_counters WHERE org_id = $1',
        orgId,
      );
      const total = Number(counter?.rows ?? 0);
      const highest = total - offset;
      if (highest <= 0) return { rows: [], total };
      const rows = await this.sql.$queryRawUnsafe<DbRow[]>(
        `SELECT ${COLUMNS} FROM analytics_rows r JOIN analytics_readings d ON d.row_id = r.id
          WHERE r.org_id = $1 AND r.seq <= $2 ORDER BY r.seq DESC LIMIT ${limit}`,
        orgId,
        highest,
      );
      return { rows: rows.map(toRecord), total };
    }
    const { sql: clause, values } = where(orgId, filters);
    const [rows, count] = await Promise.all([
      this.sql.$queryRawUnsafe<DbRow[]>(
        `SELECT ${COLUMNS}
           FROM (SELECT id, seq FROM analytics_rows WHERE ${clause} ORDER BY seq DESC OFFSET ${offset} LIMIT ${limit}) p
           JOIN analytics_rows r ON r.id = p.id
           JOIN analytics_readings d ON d.row_id = p.id
          ORDER BY p.seq DESC`,
        ...values,
      ),
      this.sql.$queryRawUnsafe<{ total: bigint }[]>(
        `SELECT count(*) AS total FROM analytics_rows WHERE ${clause}`,
        ...values,
      ),
    ]);
    return { rows: rows.map(toRecord), total: Number(count[0]?.total ?? 0) };
  }

  async byIds(orgId: string, ids: readonly string[]): Promise<AnalyticsRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.$queryRawUnsafe<DbRow[]>(
      `SELECT ${COLUMNS} FROM analytics_rows r JOIN analytics_readings d ON d.row_id = r.id WHERE r.org_id = $1 AND r.id = ANY($2::uuid[])`,
      orgId,
      ids,
    );
    return rows.map(toRecord);
  }

  /**
   * Claims up to `limit` readings the background should take now, pushing their next read out by
   * `leaseMs` in the same statement so other replicas skip them. Due accounts that are not paused come
   * first, the most overdue first, then each one's due readings in order from the (account_id,
   * next_sync_at) index: a paused account is one entry passed over, however many of its rows wait
   * (migration 20261127160000). Only readings are written; the recorded rows are read by primary key.
   */
  async claimDue(now: Date, limit: number, leaseMs: number): Promise<AnalyticsRecord[]> {
    const due = await this.sql.$queryRawUnsafe<{ account_id: string }[]>(
      `SELECT a.account_id FROM analytics_account_due a
        WHERE a.next_due_at <= $1
          AND ${NOT_PAUSED}
        ORDER BY a.next_due_at LIMIT $2`,
      now,
      limit,
    );
    if (due.length === 0) return [];
    const accountIds = due.map((row) => row.account_id);
    // A nested loop over the accounts in order, which stops at the limit: it reads the due rows it
    // takes and one look at each account with none, never a paused account's rows. The update finds
    // them by key (= ANY of an array): with IN, the planner may hash-join a scan of the whole table.
    const rows = await this.sql.$queryRawUnsafe<DbRow[]>(
      `WITH picked AS (
         SELECT due.row_id FROM unnest($4::text[]) AS a(account_id)
          CROSS JOIN LATERAL (
            SELECT d.row_id FROM analytics_readings d
             WHERE d.account_id = a.account_id AND d.next_sync_at <= $1
             ORDER BY d.next_sync_at LIMIT $2
             FOR UPDATE SKIP LOCKED) due
          LIMIT $2
       ), d AS (
         UPDATE analytics_readings SET next_sync_at = $1::timestamptz + make_interval(secs => $3::float8 / 1000), refresh_claimed_at = $1
          WHERE row_id = ANY(ARRAY(SELECT row_id FROM picked))
          RETURNING *)
       SELECT ${COLUMNS} FROM d JOIN analytics_rows r ON r.id = d.row_id`,
      now,
      limit,
      leaseMs,
      accountIds,
    );
    // The accounts the loop looked at: all of them when the batch is not full, else those up to the
    // last that gave a row. One it did not reach keeps its early time, which costs only a look next pass.
    const order = new Map(accountIds.map((id, index) => [id, index]));
    const reached =
      rows.length < limit ? accountIds.length : Math.max(...rows.map((row) => order.get(row.account_id)!)) + 1;
    await this.reschedule(accountIds.slice(0, reached));
    return rows.map(toRecord);
  }

  /**
   * How far behind the background is at `now`: the seconds since the earliest next read of any
   * reading now due, over accounts that are not paused (a pause defers their rows on purpose); 0 when
   * none is due. The accounts' due times only narrow the look (never later than their readings'
   * earliest next read); each candidate's first entry in the (account_id, next_sync_at) index gives
   * its exact time.
   */
  async backgroundLagSeconds(now: Date): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<{ lag: number | null }[]>(
      `SELECT EXTRACT(EPOCH FROM ($1::timestamptz - min(earliest.next_sync_at)))::float8 AS lag
         FROM analytics_account_due a
        CROSS JOIN LATERAL (SELECT d.next_sync_at FROM analytics_readings d WHERE d.account_id = a.account_id ORDER BY d.next_sync_at LIMIT 1) earliest
        WHERE a.next_due_at <= $1 AND earliest.next_sync_at <= $1
          AND ${NOT_PAUSED}`,
      now,
    );
    return Math.max(0, row?.lag ?? 0);
  }

  /**
   * Moves each account's due time to its readings' earliest next read (after a claim leased them, or
   * found none due). The accounts' rows are locked first and the readings read after, in a statement of
   * its own: a row recorded meanwhile is then either committed and seen, or waits on the lock and lowers
   * the time once this commits. One UPDATE would read the readings as they were before it waited for a
   * lock, and could set a time later than that row's next read.
   */
  private async reschedule(accountIds: readonly string[]): Promise<void> {
    if (accountIds.length === 0) return;
    await this.sql.$transaction(async (tx) => {
      await tx.$queryRawUnsafe(
        'SELECT account_id FROM analytics_account_due WHERE account_id = ANY($1::text[]) ORDER BY account_id FOR UPDATE',
        [...accountIds],
      );
      await tx.$executeRawUnsafe(
        `UPDATE analytics_account_due a SET next_due_at = m.next_due_at
           FROM (SELECT x.account_id,
                        COALESCE((SELECT min(d.next_sync_at) FROM analytics_readings d WHERE d.account_id = x.account_id), 'infinity') AS next_due_at
                   FROM unnest($1::text[]) AS x(account_id)) m
          WHERE a.account_id = m.account_id AND a.next_due_at <> m.next_due_at`,
        [...accountIds],
      );
    });
  }

  /**
   * Saves refresh outcomes in one statement (a refresh of 100 posts is one round trip, not 100): the
   * rows' readings and their next read, all in `analytics_readings`, and their accounts' due times
   * brought forward where a next read is sooner (a pause that ends before the lease, a retry).
   */
  async updateMany(updates: readonly { id: string; update: RowUpdate }[]): Promise<void> {
    if (updates.length === 0) return;
    const values = updates.map(({ id, update }) => ({
      id,
      sync_status: update.syncStatus,
      metrics: update.metrics ?? null,
      warnings: update.warnings,
      error_message: update.errorMessage,
      last_updated_at: update.lastUpdatedAt?.toISOString() ?? null,
      set_stale: update.staleAfter !== undefined,
      stale_after: update.staleAfter?.toISOString() ?? null,
      next_sync_at: update.nextSyncAt.toISOString(),
    }));
    await this.sql.$executeRawUnsafe(
      `WITH saved AS (
         UPDATE analytics_readings d
            SET sync_status = u.sync_status, metrics = COALESCE(u.metrics, d.metrics), warnings = u.warnings, error_message = u.error_message,
                last_updated_at = COALESCE(u.last_updated_at, d.last_updated_at),
                stale_after = CASE WHEN u.set_stale THEN u.stale_after ELSE d.stale_after END,
                next_sync_at = u.next_sync_at
           FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, sync_status text, metrics jsonb, warnings jsonb, error_message text,
                                                   last_updated_at timestamptz, set_stale boolean, stale_after timestamptz, next_sync_at timestamptz)
          WHERE d.row_id = u.id
          RETURNING d.account_id, d.next_sync_at)
       ${lowerAccountDue('saved')}`,
      JSON.stringify(values),
    );
  }

  /**
   * Claims for a list read's refresh those of the organization's rows no network read began for
   * since `now - minAgeMs` and that were not refreshed since then either. Of concurrent claims of a
   * row, on any replicas, one takes it: the others skip it while it is locked and see the claim once
   * it is committed. Their next background read moves to
   * `now + minAgeMs` at the earliest, so the background does not read them meanwhile either (the save
   * or a release sets it again). Returns each claimed row's next read as it was before the claim.
   */
  async claimForRefresh(
    orgId: string,
    ids: readonly string[],
    now: Date,
    minAgeMs: number,
  ): Promise<Map<string, Date>> {
    if (ids.length === 0) return new Map();
    const since = new Date(now.getTime() - minAgeMs);
    const rows = await this.sql.$queryRawUnsafe<{ row_id: string; next_sync_at: Date }[]>(
      `WITH free AS (
         SELECT d.row_id, d.next_sync_at FROM analytics_readings d JOIN analytics_rows r ON r.id = d.row_id
          WHERE d.row_id = ANY($2::uuid[]) AND r.org_id = $1
            AND (d.refresh_claimed_at IS NULL OR d.refresh_claimed_at <= $4)
            AND (d.last_updated_at IS NULL OR d.last_updated_at <= $4)
          ORDER BY d.row_id
          FOR UPDATE OF d SKIP LOCKED)
       UPDATE analytics_readings d SET refresh_claimed_at = $3, next_sync_at = GREATEST(d.next_sync_at, $5)
         FROM free WHERE d.row_id = free.row_id
       RETURNING d.row_id, free.next_sync_at`,
      orgId,
      ids,
      now,
      since,
      new Date(now.getTime() + minAgeMs),
    );
    return new Map(rows.map((row) => [row.row_id, row.next_sync_at]));
  }

  /**
   * Gives back claims of rows no network read was started for, their next background read set to
   * `nextSyncAt` (what it was before the claim, or sooner to hand them to the background).
   */
  async releaseClaims(rows: readonly { id: string; nextSyncAt: Date }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.sql.$executeRawUnsafe(
      `WITH released AS (
         UPDATE analytics_readings d SET refresh_claimed_at = NULL, next_sync_at = u.next_sync_at
           FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, next_sync_at timestamptz)
          WHERE d.row_id = u.id
          RETURNING d.account_id, d.next_sync_at)
       ${lowerAccountDue('released')}`,
      JSON.stringify(rows.map((row) => ({ id: row.id, next_sync_at: row.nextSyncAt.toISOString() }))),
    );
  }

  /**
   * Takes up to `wanted` network reads from the organization's budget of `perMinute` for the minute
   * `window` begins, and returns how many it got (0 once the minute's budget is spent). One statement
   * under the organization's row lock, so replicas share one budget (a replica whose clock is a little
   * behind counts into the current minute).
   */
  async takeOrgReads(orgId: string, window: Date, wanted: number, perMinute: number): Promise<number> {
    const [row] = await this.sql.$queryRawUnsafe<{ granted: number }[]>(
      `INSERT INTO analytics_org_reads AS b (org_id, window_start, used, granted) VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int))
       ON CONFLICT (org_id) DO UPDATE SET
         granted = CASE WHEN EXCLUDED.window_start <= b.window_start THEN LEAST($3::int, GREATEST($4::int - b.used, 0)) ELSE LEAST($3::int, $4::int) END,
         used = CASE WHEN EXCLUDED.window_start <= b.window_start THEN b.used + LEAST($3::int, GREATEST($4::int - b.used, 0)) ELSE LEAST($3::int, $4::int) END,
         window_start = GREATEST(b.window_start, EXCLUDED.window_start)
       RETURNING granted`,
      orgId,
      window,
      wanted,
      perMinute,
    );
    return row?.granted ?? 0;
  }

  /** Leaves an account alone until `until` (a 429, or a rate-limit window the network says is used up). */
  async pause(
    account: { accountId: string; orgId: string; platform: string },
    until: Date,
    reason: string,
  ): Promise<void> {
    await this.db.$executeRawUnsafe(
      `INSERT INTO account_pauses (account_id, org_id, platform, paused_until, reason) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id) DO UPDATE SET paused_until = GREATEST(account_pauses.paused_until, EXCLUDED.paused_until), reason = EXCLUDED.reason`,
      account.accountId,
      account.orgId,
      account.platform,
      until,
      reason,
    );
  }

  /** The accounts among these that are paused at `now`, with the time each may be called again. */
  async pausedUntil(accountIds: readonly string[], now: Date): Promise<Map<string, Date>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.db.$queryRawUnsafe<{ account_id: string; paused_until: Date }[]>(
      'SELECT account_id, paused_until FROM account_pauses WHERE account_id = ANY($1::text[]) AND paused_until > $2',
      [...accountIds],
      now,
    );
    return new Map(rows.map((row) => [row.account_id, row.paused_until]));
  }
}

import type { AnalyticsRecord } from '../data/analytics.repository.ts';
import { refreshRows, type RefreshDeps } from './refresh-rows.ts';

export interface ReadRefreshSettings {
  /** A row read from its network less than this long ago is served as it is, `refresh=true` or not. */
  minRefreshAgeMs: number;
  /** Rows list reads of one organization may have read from the networks per minute, across replicas. */
  orgReadsPerMinute: number;
}

const MINUTE = 60_000;

/**
 * The network reads list reads start, bounded so that no tenant spends the networks' app-wide quotas
 * (Graph's app usage, X's) that every tenant shares:
 * - a row is read at most once per `minRefreshAgeMs`, on any replica (a claim in the database), and
 *   reads of a row already being read in this process wait for that read instead of making another;
 * - each organization has `orgReadsPerMinute` rows a minute; rows past it are served as they are;
 * - every call goes through the process-wide gate (concurrency and rate), which the background shares;
 * - nothing is started once the request's reply is due: unread rows are released to the background.
 */
export class ReadRefresher {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: RefreshDeps,
    private readonly settings: ReadRefreshSettings,
  ) {}

  /** Refreshes these rows of the organization, or joins their refresh in progress; settles when all are done. */
  async refresh(orgId: string, rows: readonly AnalyticsRecord[], replyDue: AbortSignal): Promise<void> {
    const waits: Promise<void>[] = [];
    const mine: AnalyticsRecord[] = [];
    for (const row of rows) {
      const running = this.inFlight.get(row.id);
      if (running === undefined) mine.push(row);
      else waits.push(running);
    }
    if (mine.length > 0) {
      // Registered before the first await, so a read arriving meanwhile joins instead of claiming.
      const work = this.start(orgId, mine, replyDue).catch((error: unknown) =>
        this.deps.logger.error({ err: error, org_id: orgId }, 'read-time analytics refresh failed'),
      );
      for (const row of mine) this.inFlight.set(row.id, work);
      void work.finally(() => {
        for (const row of mine) if (this.inFlight.get(row.id) === work) this.inFlight.delete(row.id);
      });
      waits.push(work);
    }
    await Promise.all(waits);
  }

  private async start(orgId: string, rows: readonly AnalyticsRecord[], replyDue: AbortSignal): Promise<void> {
    const { repo, clock, logger } = this.deps;
    const now = clock();
    const claimed = await repo.claimForRefresh(
      orgId,
      rows.map((row) => row.id),
      now,
      this.settings.minRefreshAgeMs,
    );
    const candidates = rows.filter((row) => claimed.has(row.id));
    if (candidates.length === 0) return;
    const window = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
    const granted = await repo.takeOrgReads(orgId, window, candidates.length, this.settings.orgReadsPerMinute);
    const overBudget = candidates.slice(granted);
    if (overBudget.length > 0)
      logger.info(
        { org_id: orgId, rows: overBudget.length, per_minute: this.settings.orgReadsPerMinute },
        'analytics read budget of the organization used up: rows served as they are',
      );
    let notRead: AnalyticsRecord[] = [];
    try {
      notRead = await refreshRows(this.deps, candidates.slice(0, granted), replyDue);
    } finally {
      const before = (row: AnalyticsRecord) => claimed.get(row.id)!;
      // Rows past the budget keep their schedule (the background must not read them for the
      // organization either); rows the reply's time left unread are due for the background now.
      const later = clock();
      await repo.releaseClaims([
        ...overBudget.map((row) => ({ id: row.id, nextSyncAt: before(row) })),
        ...notRead.map((row) => ({ id: row.id, nextSyncAt: before(row) < later ? before(row) : later })),
      ]);
    }
  }
}

import { ANALYTICS_MAX_DEPTH, analyticsPageTooDeep, type AnalyticsPageViewType } from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { AnalyticsRecord, AnalyticsRepository, RowFilters } from '../data/analytics.repository.ts';
import type { Clock } from './cadence.ts';
import type { ReadRefresher } from './read-refresher.ts';
import { overviewOf, toRowView } from './row-view.ts';

export interface ListDeps {
  repo: AnalyticsRepository;
  clock: Clock;
  refresher: ReadRefresher;
  /** How long a read may spend refreshing rows from the networks before it answers. */
  readBudgetMs: number;
}

export interface ListInput {
  orgId: string;
  filters: RowFilters;
  page: number;
  limit: number;
  /** Bypass fresh cache: every row on the page is read from its network again. */
  refresh: boolean;
}

const needsRefresh = (row: AnalyticsRecord, now: Date) =>
  row.syncStatus === 'pending' || row.staleAfter === null || row.staleAfter <= now;

/**
 * One page of cached analytics. Rows on the page that are missing or stale (all of them with
 * `refresh`) are refreshed first, within the refresher's budgets and only for `readBudgetMs`: a network
 * call under way then finishes in the background and saves its result; what was not started keeps its
 * state (a never-synced row stays `pending`) and is left to the background sync.
 */
export async function listAnalytics(deps: ListDeps, input: ListInput): Promise<AnalyticsPageViewType> {
  if (analyticsPageTooDeep(input.page, input.limit)) {
    throw new AppError('validation_error', `page * limit must be at most ${ANALYTICS_MAX_DEPTH}.`, {
      details: [{ path: '/page', message: `page * limit must be at most ${ANALYTICS_MAX_DEPTH}` }],
    });
  }
  const { rows, total } = await deps.repo.page(input.orgId, input.filters, input.page, input.limit);
  let current = rows;
  const due = input.refresh ? rows : rows.filter((row) => needsRefresh(row, deps.clock()));
  if (due.length > 0) {
    // Failures of single rows land in the rows; a failure of the refresh as a whole (the database)
    // is logged by the refresher and the page answers from the cache.
    const replyDue = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        replyDue.abort();
        resolve();
      }, deps.readBudgetMs);
    });
    try {
      await Promise.race([deps.refresher.refresh(input.orgId, due, replyDue.signal), budget]);
    } finally {
      clearTimeout(timer);
      // Whatever was not started by now is not started late.
      replyDue.abort();
    }
    const fresh = new Map(
      (
        await deps.repo.byIds(
          input.orgId,
          due.map((row) => row.id),
        )
      ).map((row) => [row.id, row]),
    );
    current = rows.map((row) => fresh.get(row.id) ?? row);
  }
  const items = current.map(toRowView);
  return { items, total, page: input.page, limit: input.limit, overview: overviewOf(items) };
}

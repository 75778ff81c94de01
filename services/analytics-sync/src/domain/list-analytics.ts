import type { AnalyticsPageViewType } from '@svc/contracts';
import type { AnalyticsRecord, RowFilters } from '../data/analytics.repository.ts';
import { refreshRows, type RefreshDeps } from './refresh-rows.ts';
import { overviewOf, toRowView } from './row-view.ts';

export interface ListDeps extends RefreshDeps {
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

const needsRefresh = (row: AnalyticsRecord, now: Date) => row.syncStatus === 'pending' || row.staleAfter === null || row.staleAfter <= now;

/**
 * One page of cached analytics. Rows on the page that are missing or stale (all of them with
 * `refresh`) are refreshed first, but only for `readBudgetMs`: what does not finish in time keeps its
 * state (a never-synced row stays `pending`) and finishes in the background, where its result is saved.
 */
export async function listAnalytics(deps: ListDeps, input: ListInput): Promise<AnalyticsPageViewType> {
  const { rows, total } = await deps.repo.page(input.orgId, input.filters, input.page, input.limit);
  let current = rows;
  const due = input.refresh ? rows : rows.filter((row) => needsRefresh(row, deps.clock()));
  if (due.length > 0) {
    // Failures of single rows land in the rows; a failure of the refresh as a whole (the database)
    // is logged and the page answers from the cache: the read never fails because a refresh did.
    const work = refreshRows(deps, due).catch((error: unknown) => deps.logger.error({ err: error }, 'read-time analytics refresh failed'));
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deps.readBudgetMs);
    });
    try {
      await Promise.race([work, budget]);
    } finally {
      clearTimeout(timer);
    }
    const fresh = new Map((await deps.repo.byIds(input.orgId, due.map((row) => row.id))).map((row) => [row.id, row]));
    current = rows.map((row) => fresh.get(row.id) ?? row);
  }
  const items = current.map(toRowView);
  return { items, total, page: input.page, limit: input.limit, overview: overviewOf(items) };
}

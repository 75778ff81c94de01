import { isAppError } from '@svc/errors';
import type { AnalyticsRepository } from '../data/analytics.repository.ts';
import { listAnalytics, type ListDeps } from './list-analytics.ts';
import type { ReadRefresher } from './read-refresher.ts';

describe('listAnalytics paging depth', () => {
  const pages: { page: number; limit: number }[] = [];
  const deps: ListDeps = {
    repo: {
      page: async (_orgId: string, _filters: unknown, page: number, limit: number) => {
        pages.push({ page, limit });
        return { rows: [], total: 0 };
      },
    } as unknown as AnalyticsRepository,
    clock: () => new Date('2026-06-01T12:00:00Z'),
    refresher: {} as ReadRefresher,
    readBudgetMs: 100,
  };
  const list = (page: number, limit: number) =>
    listAnalytics(deps, { orgId: 'org_depth', filters: { platform: 'x' }, page, limit, refresh: false });

  beforeEach(() => {
    pages.length = 0;
  });

  it.each([
    [1e20, 25],
    [101, 100],
    [10_001, 1],
  ])('refuses page %d with limit %d (deeper than 10,000 rows) before reading the database', async (page, limit) => {
    const refused = await list(page, limit).catch((error: unknown) => error);
    expect(isAppError(refused) && refused.code).toBe('validation_error');
    expect(pages).toEqual([]);
  });

  it('reads the deepest page allowed', async () => {
    expect((await list(100, 100)).items).toEqual([]);
    expect(pages).toEqual([{ page: 100, limit: 100 }]);
  });
});

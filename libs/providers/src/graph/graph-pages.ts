import { type GraphApi } from './graph-api.ts';

export interface ManagedPage {
  id: string;
  name?: string;
  access_token?: string;
  tasks?: string[];
  instagram_business_account?: { id: string; username?: string };
}

interface PageOfPages {
  data?: ManagedPage[];
  paging?: { cursors?: { after?: string }; next?: string };
}

const PAGE_SIZE = 100;
/** A bound on the walk (100 x 100 Pages) so a cursor that never ends cannot hold a connect forever. */
const MAX_REQUESTS = 100;

/**
 * Every Facebook Page the user manages (`GET /me/accounts`), following `paging.cursors.after` while
 * `paging.next` says there is more (developers.facebook.com/docs/graph-api/results: cursor-based
 * pagination; /me/accounts answers 25 a page by default). Reading only the first page missed the
 * Pages, and the Instagram accounts linked to them, of users who manage many.
 */
export async function listManagedPages(api: GraphApi, token: string, fields: string): Promise<ManagedPage[]> {
  const pages: ManagedPage[] = [];
  let after: string | undefined;
  for (let request = 0; request < MAX_REQUESTS; request += 1) {
    const batch = await api.get<PageOfPages>('/me/accounts', { fields, limit: PAGE_SIZE, after }, token);
    pages.push(...(batch.data ?? []));
    after = batch.paging?.cursors?.after;
    if (!batch.paging?.next || after === undefined || (batch.data ?? []).length === 0) break;
  }
  return pages;
}

import type { AccountViewType } from '@svc/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@svc/db';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import { toAccountView } from './account-view.ts';

export interface ListAccountsInput {
  orgId: string;
  provider?: string | undefined;
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first; the cursor is opaque (keyset on created_at, id) and `total` counts the whole filtered set. */
export async function listAccounts(repository: AccountsRepository, input: ListAccountsInput) {
  const { rows, total } = await repository.page({
    orgId: input.orgId,
    provider: input.provider,
    q: input.q,
    limit: input.limit,
    after: input.cursor === undefined ? undefined : decodeKeysetCursor(input.cursor),
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const items: AccountViewType[] = page.map(toAccountView);
  return {
    items,
    next_cursor: rows.length > input.limit && last !== undefined ? encodeKeysetCursor(last) : null,
    total,
  };
}

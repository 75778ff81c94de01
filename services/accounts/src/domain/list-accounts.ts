import type { AccountViewType } from '@svc/contracts';
import { validationError } from '@svc/errors';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import { toAccountView } from './account-view.ts';

export interface ListAccountsInput {
  orgId: string;
  provider?: string | undefined;
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    const createdAt = new Date(String(value.t));
    if (typeof value.i !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id: value.i };
  } catch {
    throw validationError('The cursor is not valid; pass the next_cursor of a previous page.', [{ path: '/query/cursor', message: 'is not a cursor of this list' }]);
  }
}

const encodeCursor = (createdAt: Date, id: string) => Buffer.from(JSON.stringify({ t: createdAt.toISOString(), i: id })).toString('base64url');

/** Newest first; the cursor is opaque (keyset on created_at, id) and `total` counts the whole filtered set. */
export async function listAccounts(repository: AccountsRepository, input: ListAccountsInput) {
  const { rows, total } = await repository.page({
    orgId: input.orgId,
    provider: input.provider,
    q: input.q,
    limit: input.limit,
    after: input.cursor === undefined ? undefined : decodeCursor(input.cursor),
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const items: AccountViewType[] = page.map(toAccountView);
  return { items, next_cursor: rows.length > input.limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null, total };
}

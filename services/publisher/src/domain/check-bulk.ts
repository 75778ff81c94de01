import type { ErrorDetail } from '@svc/errors';
import type { AccountsClient, AccountSummary } from './accounts-client.ts';
import { checkJob, type CheckedJob, type CheckJobDeps, type JobMediaSource, type JobRequest } from './check-job.ts';

/** A problem of one row of a bulk, as `POST /v1/posts/bulk` reports it. */
export interface BulkProblem {
  /** 1-based position of the row among the bulk's posts (a CSV's data rows, the header not counted). */
  row: number;
  account_id: string | null;
  /** JSON pointer inside the row, e.g. `/account_ids/0`; empty for the row as a whole. */
  path: string;
  rule: string;
  message: string;
}

/** Rows checked at once: each may read media heads and takes the database for its schedule. */
const ROW_CONCURRENCY = 8;
/** Account ids per lookup (the accounts lookup RPC's limit). */
const LOOKUP_CHUNK = 100;

/** A check's problem, re-pointed into its row (`/body/text` -> `/text`). */
export function bulkProblem(row: number, problem: ErrorDetail): BulkProblem {
  const path = problem.path ?? '/body';
  return {
    row,
    account_id: typeof problem.account_id === 'string' ? problem.account_id : null,
    path: path.startsWith('/body') ? path.slice('/body'.length) : path,
    rule: typeof problem.rule === 'string' ? problem.rule : 'invalid',
    message: problem.message,
  };
}

/**
 * The accounts of every row, looked up once for the whole bulk (in chunks of the lookup's size):
 * 500 rows naming the same few accounts ask the replica once, not 500 times.
 */
export async function bulkAccounts(accounts: AccountsClient, requests: readonly JobRequest[]): Promise<AccountsClient> {
  const first = requests[0]!;
  const ids = [...new Set(requests.flatMap((request) => request.accountIds))];
  const chunks: string[][] = [];
  for (let start = 0; start < ids.length; start += LOOKUP_CHUNK) chunks.push(ids.slice(start, start + LOOKUP_CHUNK));
  const found = new Map<string, AccountSummary>();
  for (const items of await Promise.all(chunks.map((chunk) => accounts.lookup(first.orgId, chunk, first.requestId))))
    for (const account of items) found.set(account.id, account);
  return {
    lookup: (_orgId, accountIds) =>
      Promise.resolve(accountIds.flatMap((id) => (found.has(id) ? [found.get(id)!] : []))),
    credentials: (orgId, accountId, forceRefresh, requestId) =>
      accounts.credentials(orgId, accountId, forceRefresh, requestId),
  };
}

/** Runs `work` over the items, at most `limit` at once, keeping their order in the result. */
export async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index]!, index);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Checks every row of a bulk with the rules of a single post (check-job.ts), all rows even when
 * the first is broken, so one answer lists every problem of every row. `media` says where each
 * row's media facts come from (read or imported).
 */
export async function checkBulk(
  deps: CheckJobDeps,
  requests: readonly JobRequest[],
  media: (request: JobRequest) => JobMediaSource,
): Promise<{ checked: CheckedJob[]; problems: BulkProblem[] }> {
  const rowDeps = { ...deps, accounts: await bulkAccounts(deps.accounts, requests) };
  const checked = await eachLimited(requests, ROW_CONCURRENCY, (request) => checkJob(rowDeps, request, media(request)));
  const problems = checked.flatMap((job, index) => job.problems.map((problem) => bulkProblem(index + 1, problem)));
  return { checked, problems };
}

import { columns, truncate } from '../output/columns.ts';

export interface TargetResult {
  account_id: string;
  provider: string;
  status: string;
  platform_post_id: string | null;
  platform_post_url: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  published_at: string | null;
}

export interface PostView {
  id: string;
  status: string;
  text: string;
  scheduled_at: string | null;
  created_at: string;
  results: TargetResult[];
  /** Set on an occurrence of a recurring post. */
  recurrence_id?: string;
}

/** A job status after which nothing changes (docs/api-conventions.md, "Publishing model and statuses"). */
export const FINAL_JOB_STATUSES = new Set(['published', 'partial', 'failed', 'canceled']);
const FINAL_TARGET_STATUSES = new Set(['published', 'failed', 'canceled']);

export const isSettled = (post: PostView) =>
  FINAL_JOB_STATUSES.has(post.status) && post.results.every((result) => FINAL_TARGET_STATUSES.has(result.status));

export const failedTargets = (post: PostView) => post.results.filter((result) => result.status === 'failed');

/** One line per target: network, account, status, and the post's address or why it failed. */
export function renderTargets(post: PostView): string {
  return columns(
    ['NETWORK', 'ACCOUNT', 'STATUS', 'RESULT'],
    post.results.map((result) => [
      result.provider,
      result.account_id,
      result.status,
      result.status === 'failed'
        ? `${result.error_code ?? 'error'}: ${truncate(result.error_message ?? '', 100)}`
        : (result.platform_post_url ?? result.platform_post_id),
    ]),
  );
}

export function renderPost(post: PostView): string {
  const when = post.scheduled_at === null ? '' : `, scheduled for ${post.scheduled_at}`;
  return [`Post ${post.id}: ${post.status}${when}`, renderTargets(post)].join('\n');
}

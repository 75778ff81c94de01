import { SvcApiError } from '@svc/sdk';

/**
 * A refused "Retry failed targets" in words, by the API's status and code, or null when the general
 * error message says it. A 409 `conflict`: no target is failed any more (another retry or a
 * reconciliation got there first, or the post is being delivered again).
 */
export function explainRetryError(error: unknown): string | null {
  if (!(error instanceof SvcApiError)) return null;
  if (error.status === 409 && error.code === 'conflict')
    return 'Nothing to retry: none of this post’s targets is failed now (it may be on its way again already). Its status below is the current one.';
  if (error.status === 404 && error.code === 'not_found')
    return 'This post can no longer be found in your organization.';
  return null;
}

/** Whether a post has failed targets a retry may deliver again. */
export const canRetry = (status: string) => status === 'failed' || status === 'partial';

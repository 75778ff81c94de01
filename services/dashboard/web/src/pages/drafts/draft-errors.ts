import { SvcApiError } from '@svc/sdk';

/** What was being done to the draft when the API refused. */
export type DraftAction = 'edit' | 'publish' | 'delete' | 'request-approval' | 'review' | 'review-link';

/**
 * A refused draft action in words, by status and error code (the API's 409 `conflict` means a
 * different thing for each action), or null when the general error message says it (describeError).
 */
export function explainDraftError(error: unknown, action: DraftAction): string | null {
  if (!(error instanceof SvcApiError)) return null;
  if (error.status === 404 && error.code === 'not_found')
    return 'This draft can no longer be found in your organization: it was deleted or published meanwhile.';
  // 412 is what a proxy or a later API may answer to a failed If-Match: the same conflict.
  if (error.status === 412 || (error.status === 409 && error.code === 'conflict')) {
    switch (action) {
      case 'edit':
        return 'Someone changed this draft after you opened it, so your edit was not saved. The draft is shown again as it is now: make your edit again.';
      case 'publish':
        return error.details.some((detail) => detail.rule === 'approval_required')
          ? 'This draft needs approval before it is published: a reviewer has to approve it first.'
          : 'This draft changed or is no longer a draft (published or deleted meanwhile). It is shown again as it is now.';
      case 'delete':
        return 'This post is no longer a draft, so it cannot be deleted here: cancel it from the Calendar if it is scheduled.';
      case 'request-approval':
        return 'This post is no longer a draft: only a draft can be sent for approval.';
      case 'review':
        return 'This draft has no approval pending any more: it was edited or decided meanwhile. It is shown again as it is now.';
      case 'review-link':
        return 'A review link needs an approval pending: ask for approval first.';
    }
  }
  return null;
}

import { SvcApiError } from '@svc/sdk';

/** A refused cancel in words, in place of the API's error, and where the post can be followed. */
export interface CancelExplanation {
  message: string;
  /** The post went on without being canceled: History shows how its publishing goes. */
  followInHistory: boolean;
}

/**
 * What a failed `POST /v1/posts/{id}/cancel` means for the person who clicked Cancel, by the API's
 * error code. Only a scheduled post can be canceled; once its time came it is queued, and the API
 * answers 409 `conflict`. Null: nothing more to say than the error itself (describeError).
 */
export function explainCancelError(error: unknown): CancelExplanation | null {
  if (!(error instanceof SvcApiError)) return null;
  switch (error.code) {
    case 'conflict':
      return {
        message: 'This post is already being published and can no longer be canceled.',
        followInHistory: true,
      };
    case 'not_found':
      // The session's organization is shared by the browser's tabs: a switch in another one leaves
      // this calendar showing posts the API no longer finds.
      return {
        message:
          'This post can no longer be found in your organization (was the organization switched in another tab?). Reload the page to see the schedule as it is.',
        followInHistory: false,
      };
    default:
      return null;
  }
}

// Recurring posts: created by `posts.create({..., recurrence})`, each occurrence a post of its own.
import type { Call, RequestOptions } from '../call.ts';

export function recurrencesResource(call: Call) {
  return {
    /** The rule and its next occurrence times; a 404 SvcApiError for an unknown id or another organization's. */
    get: (recurrenceId: string, options?: RequestOptions) =>
      call('getRecurrence', { path: { recurrence_id: recurrenceId }, ...options }),
    /** Stop it: no more occurrences, those still scheduled canceled (resolves with no body, 204). */
    delete: (recurrenceId: string, options?: RequestOptions) =>
      call('deleteRecurrence', { path: { recurrence_id: recurrenceId }, ...options }),
  };
}

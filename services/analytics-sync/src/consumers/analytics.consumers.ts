import { postPublished, type Handlers } from '@svc/contracts';
import type { PublishedRecorder } from '../domain/record-published.ts';

/** analytics-sync's own binding of post.published.v1 (queue `analytics-sync.work`); other services bind their own queues. */
export const analyticsEvents = [postPublished] as const;

export function analyticsEventHandlers(recorder: PublishedRecorder): Handlers<typeof analyticsEvents> {
  return {
    'post.published.v1': (env) => recorder.record(env),
  };
}

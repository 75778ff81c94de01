import { postPublished, type Handlers } from '@svc/contracts';
import { recordPublished } from '../domain/record-published.ts';

/** analytics-sync's own binding of post.published.v1 (queue `analytics-sync.work`); other services bind their own queues. */
export const analyticsEvents = [postPublished] as const;

export function analyticsEventHandlers(deps: Parameters<typeof recordPublished>[0]): Handlers<typeof analyticsEvents> {
  return {
    'post.published.v1': (env) => recordPublished(deps, env),
  };
}

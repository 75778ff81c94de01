import { postPublished, type Handlers } from '@svc/contracts';
import type { AnalyticsRepository } from '../data/analytics.repository.ts';
import { recordPublished } from '../domain/record-published.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** analytics-sync's own binding of post.published.v1 (queue `analytics-sync.work`); other services bind their own queues. */
export const analyticsEvents = [postPublished] as const;

export function analyticsEventHandlers(deps: { db: PrismaClient; repo: AnalyticsRepository; wake: () => void }): Handlers<typeof analyticsEvents> {
  return {
    'post.published.v1': (env) => recordPublished(deps, env),
  };
}

import { AppError } from '@svc/errors';

/** 402 naming the monthly posts limit and the usage, for a job its organization had no unit left for. */
export function planLimitReached(plan: string, used: number, limit: number): AppError {
  return new AppError(
    'plan_limit_reached',
    `The ${plan} plan allows ${limit} posts a month and this organization has used ${used}; upgrade the plan or wait for next month.`,
    {
      details: [
        {
          path: '/body',
          message: `posts_per_month limit of ${limit} reached (${used} used)`,
          limit: 'posts_per_month',
          used,
          allowed: limit,
          plan,
        },
      ],
    },
  );
}

/** 402 for a bulk its organization's month cannot take whole: nothing of it was stored. */
export function bulkPlanLimitReached(posts: number, plan: string, used: number, limit: number): AppError {
  return new AppError(
    'plan_limit_reached',
    `This bulk holds ${posts} posts and the ${plan} plan allows ${limit} posts a month, of which this organization has used ${used}; nothing was created. Send fewer posts, upgrade the plan or wait for next month.`,
    {
      details: [
        {
          path: '/body/posts',
          message: `posts_per_month limit of ${limit} would be exceeded (${used} used, ${posts} asked)`,
          limit: 'posts_per_month',
          used,
          allowed: limit,
          asked: posts,
          plan,
        },
      ],
    },
  );
}

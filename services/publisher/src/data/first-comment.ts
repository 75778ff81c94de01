import type { RawSql } from '@svc/db';

// A delivery whose job has a first comment runs in two steps within its attempts: the post, recorded
// as soon as it exists (the delivery stays in flight), then the comment, whose outcome is recorded
// before the delivery finishes. Each write lands before the next network call, so a crash or a lost
// answer resumes at the comment and never posts again (domain/first-comment.ts).

/**
 * The post exists: its id and URL, while attempt `attempt` owns the delivery, before its first
 * comment is made. Clears what the post's own attempt left (its handle, a lookup in progress), so
 * what is looked up next is the comment. Returns whether the attempt still owned it.
 */
export async function recordPostBeforeComment(
  db: RawSql,
  deliveryId: string,
  attempt: number,
  post: { platformPostId: string; url: string | null },
): Promise<boolean> {
  const recorded = await db.$executeRawUnsafe(
    `UPDATE deliveries SET platform_post_id = $3, platform_post_url = $4, published_at = now(), attempt_handle = NULL,
            reconcile_since = NULL, reconcile_tries = 0, error_code = NULL, error_message = NULL, updated_at = now()
      WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2 AND platform_post_id IS NULL`,
    deliveryId,
    attempt,
    post.platformPostId,
    post.url,
  );
  return recorded > 0;
}

export type FirstCommentOutcome =
  { status: 'published'; platformCommentId: string } | { status: 'failed'; code: string; message: string };

/**
 * The first comment's outcome, once known, before the delivery finishes (published: its post exists).
 * Only by attempt `attempt`, in flight or (its account lost before a claim) pending, and only once.
 * Returns whether it was recorded.
 */
export async function recordFirstComment(
  db: RawSql,
  deliveryId: string,
  attempt: number,
  outcome: FirstCommentOutcome,
): Promise<boolean> {
  const published = outcome.status === 'published';
  const recorded = await db.$executeRawUnsafe(
    `UPDATE deliveries SET first_comment_status = $3, first_comment_id = $4, first_comment_error_code = $5,
            first_comment_error_message = $6, reconcile_since = NULL, reconcile_tries = 0, updated_at = now()
      WHERE id = $1::uuid AND attempts = $2 AND status IN ('in_flight', 'pending')
        AND platform_post_id IS NOT NULL AND first_comment_status IS NULL`,
    deliveryId,
    attempt,
    outcome.status,
    published ? outcome.platformCommentId : null,
    published ? null : outcome.code,
    published ? null : outcome.message.slice(0, 2000),
  );
  return recorded > 0;
}

import type { RawSql } from '@svc/db';

// The statements of one delivery's run besides its grouped read, claim and outcome (the runner's,
// domain/run-delivery.ts). Those given an `attempt` change the row only while that attempt owns it
// (in flight, its count unchanged).

/** Stored as soon as the network gives it, so a reconciliation after a crash can ask about this very attempt. */
export async function recordAttemptHandle(
  db: RawSql,
  deliveryId: string,
  attempt: number,
  handle: string,
): Promise<void> {
  await db.$executeRawUnsafe(
    "UPDATE deliveries SET attempt_handle = $3 WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2",
    deliveryId,
    attempt,
    handle,
  );
}

export interface PutBack {
  code: string;
  message: string;
  delayMs: number;
  /** Set: the next claim looks the attempt's post up (lookup `reconcileTries` + 1) instead of posting. */
  reconcileTries: number | undefined;
  quotaDeferral: boolean;
}

/** in_flight -> pending, due in `delayMs` by the database's clock. Returns whether the attempt still owned it. */
export async function putBackDelivery(
  tx: RawSql,
  deliveryId: string,
  attempt: number,
  next: PutBack,
): Promise<boolean> {
  const reconcile = next.reconcileTries !== undefined;
  const moved = await tx.$executeRawUnsafe(
    `UPDATE deliveries SET status = 'pending', lease_until = NULL, error_code = $3, error_message = $4,
            next_attempt_at = now() + make_interval(secs => $5::float8), updated_at = now(),
            reconcile_since = CASE WHEN $6 THEN COALESCE(attempt_started_at, created_at) END,
            reconcile_tries = $7, quota_deferrals = quota_deferrals + CASE WHEN $8 THEN 1 ELSE 0 END
      WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2`,
    deliveryId,
    attempt,
    next.code,
    next.message.slice(0, 2000),
    next.delayMs / 1000,
    reconcile,
    next.reconcileTries ?? 0,
    next.quotaDeferral,
  );
  return moved > 0;
}

/** The looked-up attempt's post is verifiably absent: a new attempt, in the same claim. Returns its number. */
export async function startNextAttempt(
  db: RawSql,
  deliveryId: string,
  attempt: number,
  leaseMs: number,
): Promise<number | undefined> {
  const [next] = await db.$queryRawUnsafe<{ attempts: number }[]>(
    `UPDATE deliveries SET attempts = attempts + 1, attempt_started_at = now(), attempt_handle = NULL, reconcile_since = NULL, reconcile_tries = 0,
            error_code = NULL, error_message = NULL, lease_until = now() + make_interval(secs => $3::float8), updated_at = now()
      WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2
      RETURNING attempts`,
    deliveryId,
    attempt,
    leaseMs / 1000,
  );
  return next?.attempts;
}

/**
 * A delivery whose lease ran out (its worker died) -> pending, to look the dead attempt's post up.
 * One conditional UPDATE: a delivery its owner just moved on is left alone. Returns whether it was taken.
 */
export async function takeOverExpired(db: RawSql, deliveryId: string, code: string, message: string): Promise<boolean> {
  const taken = await db.$executeRawUnsafe(
    `UPDATE deliveries SET status = 'pending', lease_until = NULL, next_attempt_at = NULL, updated_at = now(),
            reconcile_since = COALESCE(attempt_started_at, created_at), reconcile_tries = 0, error_code = $2, error_message = $3
      WHERE id = $1::uuid AND status = 'in_flight' AND lease_until < now()`,
    deliveryId,
    code,
    message,
  );
  return taken > 0;
}

/** What is left of an in-flight delivery's lease; undefined when it is no longer in flight. */
export async function leaseRemainingMs(db: RawSql, deliveryId: string): Promise<number | undefined> {
  const [lease] = await db.$queryRawUnsafe<{ remaining_ms: number }[]>(
    "SELECT GREATEST(0, EXTRACT(EPOCH FROM (lease_until - now())) * 1000)::float8 AS remaining_ms FROM deliveries WHERE id = $1::uuid AND status = 'in_flight'",
    deliveryId,
  );
  return lease?.remaining_ms;
}

/**
 * The network accepted a post after its attempt's lease ran out and another worker resolved it as
 * outcome_unknown: the native id is kept (it is the truth) without announcing the job twice.
 */
export async function keepLateSuccess(
  db: RawSql,
  deliveryId: string,
  platformPostId: string,
  url: string | null,
): Promise<void> {
  await db.$executeRawUnsafe(
    'UPDATE deliveries SET platform_post_id = $2, platform_post_url = $3, updated_at = now() WHERE id = $1::uuid AND platform_post_id IS NULL',
    deliveryId,
    platformPostId,
    url,
  );
}

/**
 * Native ids recorded for the account's other deliveries updated since 10 minutes before `since`
 * (their posts, and the parts of their threads): a lookup excludes them, so two deliveries of the
 * same text never claim one post.
 */
export async function postIdsTakenNear(
  db: RawSql,
  target: { orgId: string; accountId: string; id: string; since: Date },
): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT taken.id FROM deliveries d
      CROSS JOIN LATERAL (
        SELECT d.platform_post_id AS id WHERE d.platform_post_id IS NOT NULL
        UNION SELECT part->>'id' FROM jsonb_array_elements(d.thread_parts) part) taken
      WHERE d.org_id = $1 AND d.account_id = $2 AND d.id <> $3::uuid
        AND (d.platform_post_id IS NOT NULL OR d.thread_parts <> '[]'::jsonb)
        AND d.updated_at >= $4::timestamptz - interval '10 minutes'`,
    target.orgId,
    target.accountId,
    target.id,
    target.since.toISOString(),
  );
  return rows.map((row) => row.id);
}

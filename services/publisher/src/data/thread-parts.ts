import type { RawSql } from '@svc/db';

/**
 * Part `index` of a thread exists: appended to the delivery's parts while attempt `attempt` owns it
 * and the part before it is the last recorded, before the next part is posted (domain/thread-delivery.ts).
 * Clears what the part's own attempt left (its media handle, a lookup in progress), which concerned
 * this part only. Returns whether it was recorded.
 */
export async function recordThreadPart(
  db: RawSql,
  deliveryId: string,
  attempt: number,
  index: number,
  part: { id: string; url: string | null },
): Promise<boolean> {
  const recorded = await db.$executeRawUnsafe(
    `UPDATE deliveries SET thread_parts = thread_parts || jsonb_build_array(jsonb_build_object('id', $4::text, 'url', $5::text)),
            attempt_handle = NULL, reconcile_since = NULL, reconcile_tries = 0, error_code = NULL, error_message = NULL,
            updated_at = now()
      WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2 AND jsonb_array_length(thread_parts) = $3`,
    deliveryId,
    attempt,
    index,
    part.id,
    part.url,
  );
  return recorded > 0;
}

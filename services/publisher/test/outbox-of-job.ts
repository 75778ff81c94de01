/** What can run a raw query: a Prisma client or the plain pg pool. */
interface Queryable {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * The types of the outbox messages about a job, sorted: its own, and its post.queued inside the
 * carrier of its organization's events (`publisher.posts_queued.v1`), counted as the type it carries.
 */
export async function outboxTypesOfJob(db: Queryable, jobId: string): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ type: string }[]>(
    `SELECT type FROM outbox_messages WHERE envelope->'payload'->>'job_id' = $1 OR envelope->'payload'->>'id' = $1
     UNION ALL
     SELECT e.event->>'type' FROM outbox_messages, jsonb_array_elements(envelope->'payload'->'events') AS e(event)
      WHERE type = 'publisher.posts_queued.v1' AND e.event->'payload'->>'job_id' = $1
     ORDER BY 1`,
    jobId,
  );
  return rows.map((row) => row.type);
}

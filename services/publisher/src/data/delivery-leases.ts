import type { RawSql } from '@svc/db';

/** Extends an in-flight delivery's lease to `leaseMs` from now (database clock); returns the rows changed. */
export function renewDeliveryLease(
  db: Pick<RawSql, '$executeRawUnsafe'>,
  deliveryId: string,
  leaseMs: number,
): Promise<number> {
  return db.$executeRawUnsafe(
    `UPDATE deliveries SET lease_until = now() + make_interval(secs => $2::float8)
        WHERE id = $1::uuid AND status = 'in_flight'`,
    deliveryId,
    leaseMs / 1000,
  );
}

/** Up to `limit` in-flight deliveries whose lease ran out, the longest expired first. */
export async function expiredLeaseDeliveryIds(db: Pick<RawSql, '$queryRawUnsafe'>, limit: number): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    "SELECT id::text AS id FROM deliveries WHERE status = 'in_flight' AND lease_until < now() ORDER BY lease_until LIMIT $1",
    limit,
  );
  return rows.map((row) => row.id);
}

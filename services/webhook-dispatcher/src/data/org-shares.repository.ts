import type { RawSql, TransactionalClient } from '@svc/db';

/** `webhook_org_shares`: each process's leased share of an organization's attempts in flight. */
export class OrgSharesRepository {
  constructor(private readonly sql: TransactionalClient) {}

  /**
   * This holder's share of each organization: what the other live holders leave of `limit`, leased
   * for `leaseMs`. The organizations' advisory locks are taken first (in one order, so two holders
   * asking for overlapping sets cannot deadlock), and the shares are read and written by a second
   * statement whose snapshot sees every share committed before the locks were granted.
   */
  reserve(
    orgIds: readonly string[],
    holder: string,
    limit: number,
    leaseMs: number,
  ): Promise<{ org_id: string; slots: number }[]> {
    if (orgIds.length === 0) return Promise.resolve([]);
    return this.sql.$transaction(async (tx: RawSql) => {
      await tx.$queryRawUnsafe(
        `SELECT pg_advisory_xact_lock(hashtextextended('webhook_org_shares:' || o, 0))
           FROM (SELECT DISTINCT unnest($1::text[]) AS o ORDER BY 1) AS orgs`,
        orgIds,
      );
      return tx.$queryRawUnsafe<{ org_id: string; slots: number }[]>(
        `WITH others AS (
           SELECT org_id, sum(slots)::int AS taken FROM webhook_org_shares
            WHERE org_id = ANY($1::text[]) AND holder <> $2::uuid AND expires_at > now()
            GROUP BY org_id
         )
         INSERT INTO webhook_org_shares (org_id, holder, slots, expires_at)
         SELECT o, $2::uuid, GREATEST(0, $3::int - COALESCE(others.taken, 0)), now() + make_interval(secs => $4::float8)
           FROM (SELECT DISTINCT unnest($1::text[]) AS o) AS orgs LEFT JOIN others ON others.org_id = orgs.o
         ON CONFLICT (org_id, holder) DO UPDATE SET slots = EXCLUDED.slots, expires_at = EXCLUDED.expires_at
         RETURNING org_id, slots`,
        orgIds,
        holder,
        limit,
        leaseMs / 1000,
      );
    });
  }

  /** Extends this holder's leases of these organizations and deletes the others' long-expired rows. */
  async renew(orgIds: readonly string[], holder: string, leaseMs: number): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `WITH renewed AS (
         UPDATE webhook_org_shares SET expires_at = now() + make_interval(secs => $3::float8)
          WHERE holder = $1::uuid AND org_id = ANY($2::text[])
       )
       DELETE FROM webhook_org_shares WHERE holder <> $1::uuid AND expires_at < now() - make_interval(secs => $3::float8)`,
      holder,
      orgIds,
      leaseMs / 1000,
    );
  }

  async release(orgIds: readonly string[], holder: string): Promise<void> {
    if (orgIds.length === 0) return;
    await this.sql.$executeRawUnsafe(
      'DELETE FROM webhook_org_shares WHERE holder = $1::uuid AND org_id = ANY($2::text[])',
      holder,
      orgIds,
    );
  }
}

import type { RawSql } from '@svc/db';

const MAX_REMEMBERED = 10_000;

/** Organizations are created on first sight of a valid token; known ids are remembered to skip the write. */
export class OrganizationsRepository {
  private readonly known = new Set<string>();

  constructor(private readonly db: RawSql) {}

  async ensure(orgId: string): Promise<void> {
    if (this.known.has(orgId)) return;
    // Concurrent first requests of a new organization race to create it; the loser finds it made.
    await this.db.$executeRawUnsafe('INSERT INTO organizations (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', orgId);
    if (this.known.size >= MAX_REMEMBERED) this.known.clear();
    this.known.add(orgId);
  }
}

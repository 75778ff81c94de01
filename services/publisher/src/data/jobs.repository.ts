import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { JobWithDeliveries } from '../domain/post-view.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface JobPageQuery {
  orgId: string;
  status?: string | undefined;
  provider?: string | undefined;
  q?: string | undefined;
  limit: number;
  after?: { createdAt: Date; id: string } | undefined;
}

export interface PublisherStats {
  posts_this_month: number;
  queue_processing: number;
  success_rate: number;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Reads of jobs and deliveries; every tenant-scoped method takes the organization. */
export class JobsRepository {
  constructor(private readonly db: PrismaClient) {}

  find(orgId: string, id: string, db: Db = this.db): Promise<JobWithDeliveries | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return db.job.findFirst({ where: { id, orgId }, include: { deliveries: true } });
  }

  /** The job whatever its organization: for consumers, whose envelope already names it. */
  findById(id: string, db: Db = this.db): Promise<JobWithDeliveries | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return db.job.findUnique({ where: { id }, include: { deliveries: true } });
  }

  /**
   * Newest first, keyset on (created_at, id), one extra row to tell whether more follow. `q` is
   * PostgreSQL full-text search (`simple` configuration, GIN index on the generated `text_search`).
   */
  async page(query: JobPageQuery): Promise<{ rows: JobWithDeliveries[]; total: number }> {
    const where: string[] = ['org_id = $1'];
    const args: unknown[] = [query.orgId];
    const arg = (value: unknown) => {
      args.push(value);
      return `$${args.length}`;
    };
    // Drafts are listed only when asked for: the history is of posts sent or to be sent.
    if (query.status !== undefined) where.push(`status = ${arg(query.status)}`);
    else where.push(`status <> 'draft'`);
    if (query.provider !== undefined) where.push(`providers @> ARRAY[${arg(query.provider)}]::text[]`);
    if (query.q !== undefined) where.push(`text_search @@ websearch_to_tsquery('simple', ${arg(query.q)})`);
    const filter = where.join(' AND ');
    const countArgs = [...args];
    let keyset = '';
    if (query.after !== undefined)
      keyset = ` AND (created_at, id) < (${arg(query.after.createdAt)}::timestamptz, ${arg(query.after.id)}::uuid)`;
    const limit = arg(query.limit + 1);
    const [ids, counted] = await Promise.all([
      this.db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id::text AS id FROM jobs WHERE ${filter}${keyset} ORDER BY created_at DESC, id DESC LIMIT ${limit}::int`,
        ...args,
      ),
      this.db.$queryRawUnsafe<{ total: bigint }[]>(`SELECT count(*) AS total FROM jobs WHERE ${filter}`, ...countArgs),
    ]);
    const rows =
      ids.length === 0
        ? []
        : await this.db.job.findMany({
            where: { id: { in: ids.map((row) => row.id) } },
            include: { deliveries: true },
          });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return {
      rows: ids.map((row) => byId.get(row.id)).filter((row) => row !== undefined),
      total: Number(counted[0]?.total ?? 0),
    };
  }

  /**
   * Dashboard numbers (docs/api-conventions.md, "Dashboard stats"), months in UTC: posts created
   * this month (canceled ones and drafts not counted), jobs waiting or running now (queued + processing), and
   * published / finished target deliveries this month (0 when none finished).
   */
  async stats(orgId: string): Promise<PublisherStats> {
    const [row] = await this.db.$queryRawUnsafe<
      { posts: bigint; queue: bigint; published: bigint; finished: bigint }[]
    >(
      `WITH month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS start)
       SELECT
         (SELECT count(*) FROM jobs, month WHERE org_id = $1 AND created_at >= month.start AND status NOT IN ('canceled', 'draft')) AS posts,
         (SELECT count(*) FROM jobs WHERE org_id = $1 AND status IN ('queued', 'processing')) AS queue,
         (SELECT count(*) FROM deliveries, month WHERE org_id = $1 AND status = 'published' AND finished_at >= month.start) AS published,
         (SELECT count(*) FROM deliveries, month WHERE org_id = $1 AND status IN ('published', 'failed') AND finished_at >= month.start) AS finished`,
      orgId,
    );
    const finished = Number(row?.finished ?? 0);
    return {
      posts_this_month: Number(row?.posts ?? 0),
      queue_processing: Number(row?.queue ?? 0),
      success_rate: finished === 0 ? 0 : Number(row?.published ?? 0) / finished,
    };
  }
}

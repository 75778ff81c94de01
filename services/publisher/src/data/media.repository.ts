import type { Media, Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export type MediaRow = Media;

export interface NewMedia {
  id: string;
  orgId: string;
  contentType: string;
  kind: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  sha256: string;
  sourceUrl: string | null;
  renditionSizeBytes: number | null;
  compatibility: object;
}

/** The media library's records; every method takes the organization. */
export class MediaRepository {
  constructor(private readonly db: PrismaClient) {}

  find(orgId: string, id: string, db: Db = this.db): Promise<MediaRow | null> {
    return db.media.findFirst({ where: { id, orgId } });
  }

  /** The organization's records among `ids` (foreign and unknown ids are simply absent). */
  findMany(orgId: string, ids: readonly string[], db: Db = this.db): Promise<MediaRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.media.findMany({ where: { orgId, id: { in: [...ids] } } });
  }

  /**
   * Inserts a record if the organization stays within `quotaBytes` (originals and renditions). The
   * check and the insert run under a per-organization advisory lock, so parallel uploads cannot
   * both fit in the last free bytes. Returns the bytes in use when refused.
   */
  async createWithinQuota(media: NewMedia, quotaBytes: number, db: PrismaClient = this.db): Promise<{ created: MediaRow } | { usedBytes: number }> {
    return db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(hashtextextended('media-quota:' || $1, 0))", media.orgId);
      const usedBytes = await this.usedBytes(media.orgId, tx);
      if (usedBytes + media.sizeBytes + (media.renditionSizeBytes ?? 0) > quotaBytes) return { usedBytes };
      const created = await tx.media.create({
        data: { ...media, sizeBytes: BigInt(media.sizeBytes), renditionSizeBytes: media.renditionSizeBytes === null ? null : BigInt(media.renditionSizeBytes), compatibility: media.compatibility },
      });
      return { created };
    });
  }

  async usedBytes(orgId: string, db: Db = this.db): Promise<number> {
    const [row] = await db.$queryRawUnsafe<{ used: string | null }[]>(
      'SELECT (COALESCE(sum(size_bytes), 0) + COALESCE(sum(rendition_size_bytes), 0))::text AS used FROM media WHERE org_id = $1',
      orgId,
    );
    return Number(row?.used ?? 0);
  }

  /** Newest first, keyset on (created_at, id), one extra row to tell whether more follow. */
  async page(orgId: string, limit: number, after: { createdAt: Date; id: string } | undefined): Promise<{ rows: MediaRow[]; total: number }> {
    const where: Prisma.MediaWhereInput = after === undefined
      ? { orgId }
      : { orgId, OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] };
    const [rows, total] = await Promise.all([
      this.db.media.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit + 1 }),
      this.db.media.count({ where: { orgId } }),
    ]);
    return { rows, total };
  }

  /** The first post not yet finished (scheduled, queued or processing) that uses the media. */
  async activeJobUsing(orgId: string, id: string, db: Db = this.db): Promise<{ id: string; status: string } | null> {
    const [row] = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
      "SELECT id::text AS id, status FROM jobs WHERE org_id = $1 AND $2 = ANY(media_ids) AND status IN ('scheduled', 'queued', 'processing') ORDER BY created_at LIMIT 1",
      orgId,
      id,
    );
    return row ?? null;
  }

  async delete(orgId: string, id: string, db: Db = this.db): Promise<boolean> {
    return (await db.media.deleteMany({ where: { orgId, id } })).count > 0;
  }
}

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
  pageCount: number | null;
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

  /** Serializes the quota decisions of one organization (reservations and records) in `tx`. */
  private lockQuota(tx: Prisma.TransactionClient, orgId: string) {
    return tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(hashtextextended('media-quota:' || $1, 0))", orgId);
  }

  /**
   * Reserves `bytes` of the organization's quota for an ingest about to store them, if the records,
   * the live reservations and these bytes stay within `quotaBytes`. Under the same per-organization
   * advisory lock as recording, so two parallel uploads cannot both take the last free bytes; expired
   * reservations (an ingest that died) are dropped here. Returns the bytes in use when refused.
   */
  async reserve(
    orgId: string,
    bytes: number,
    quotaBytes: number,
    ttlMs: number,
  ): Promise<{ reservationId: string } | { usedBytes: number }> {
    return this.db.$transaction(async (tx) => {
      await this.lockQuota(tx, orgId);
      await tx.mediaQuotaReservation.deleteMany({ where: { orgId, expiresAt: { lte: new Date() } } });
      const usedBytes = await this.usedBytes(orgId, tx);
      if (usedBytes + bytes > quotaBytes) return { usedBytes };
      const row = await tx.mediaQuotaReservation.create({
        data: { orgId, bytes: BigInt(bytes), expiresAt: new Date(Date.now() + ttlMs) },
      });
      return { reservationId: row.id };
    });
  }

  /** Gives a reservation back (the ingest failed before recording); unknown or expired ids are fine. */
  async release(orgId: string, reservationId: string): Promise<void> {
    await this.db.mediaQuotaReservation.deleteMany({ where: { id: reservationId, orgId } });
  }

  /**
   * Inserts a record if the organization stays within `quotaBytes` (originals and renditions, and the
   * other ingests' live reservations). `reservationId`, the ingest's own reservation, is consumed in
   * the same transaction. Returns the bytes in use when refused.
   */
  async createWithinQuota(
    media: NewMedia,
    quotaBytes: number,
    reservationId?: string,
  ): Promise<{ created: MediaRow } | { usedBytes: number }> {
    return this.db.$transaction(async (tx) => {
      await this.lockQuota(tx, media.orgId);
      if (reservationId !== undefined)
        await tx.mediaQuotaReservation.deleteMany({ where: { id: reservationId, orgId: media.orgId } });
      const usedBytes = await this.usedBytes(media.orgId, tx);
      if (usedBytes + media.sizeBytes + (media.renditionSizeBytes ?? 0) > quotaBytes) return { usedBytes };
      const created = await tx.media.create({
        data: {
          ...media,
          sizeBytes: BigInt(media.sizeBytes),
          renditionSizeBytes: media.renditionSizeBytes === null ? null : BigInt(media.renditionSizeBytes),
          compatibility: media.compatibility,
        },
      });
      return { created };
    });
  }

  /** Records' bytes (originals and renditions) plus live reservations. */
  async usedBytes(orgId: string, db: Db = this.db): Promise<number> {
    const [row] = await db.$queryRawUnsafe<{ used: string | null }[]>(
      `SELECT ((SELECT COALESCE(sum(size_bytes), 0) + COALESCE(sum(rendition_size_bytes), 0) FROM media WHERE org_id = $1)
        + (SELECT COALESCE(sum(bytes), 0) FROM media_quota_reservations WHERE org_id = $1 AND expires_at > now()))::text AS used`,
      orgId,
    );
    return Number(row?.used ?? 0);
  }

  /** Which of `ids` have a record, whatever their organization (the orphan sweep). */
  async existingIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.media.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
    return new Set(rows.map((row) => row.id));
  }

  /** Newest first, keyset on (created_at, id), one extra row to tell whether more follow. */
  async page(
    orgId: string,
    limit: number,
    after: { createdAt: Date; id: string } | undefined,
  ): Promise<{ rows: MediaRow[]; total: number }> {
    const where: Prisma.MediaWhereInput =
      after === undefined
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

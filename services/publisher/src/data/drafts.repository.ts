import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from './jobs.repository.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/** A draft's columns as the history and search show it (its request itself is in `draft`). */
export interface DraftRow {
  id: string;
  orgId: string;
  text: string;
  mediaUrls: string[];
  mediaIds: string[];
  options: Record<string, Record<string, unknown>>;
  accountIds: string[];
  providers: string[];
  scheduledAt: Date | null;
  requestId: string | null;
  firstComment: string | null;
  draft: unknown;
}

/** What the change of a draft's content writes, also when it is published. */
type DraftContent = Omit<DraftRow, 'id' | 'orgId' | 'requestId'>;

/** Drafts: jobs in status `draft`. Every statement is conditional on the status (and version when given). */
export class DraftsRepository {
  constructor(private readonly db: PrismaClient) {}

  async insert(row: DraftRow): Promise<void> {
    await this.db.job.create({
      data: {
        id: row.id,
        orgId: row.orgId,
        status: 'draft',
        text: row.text,
        mediaUrls: row.mediaUrls,
        mediaIds: row.mediaIds,
        options: row.options as Prisma.InputJsonValue,
        accountIds: row.accountIds,
        providers: row.providers,
        scheduledAt: row.scheduledAt,
        requestId: row.requestId,
        firstComment: row.firstComment,
        draft: row.draft as Prisma.InputJsonValue,
      },
    });
  }

  /** The edit, if the post is still a draft at `version`: one conditional UPDATE; false when it was not. */
  /**
   * `reapprove`: the draft's approval was asked for; the edited draft needs it again (pending, the
   * earlier decision cleared), since what was approved is no longer what would be sent.
   */
  async update(orgId: string, id: string, version: number, content: DraftContent, reapprove = false): Promise<boolean> {
    const { count } = await this.db.job.updateMany({
      where: { id, orgId, status: 'draft', version },
      data: {
        text: content.text,
        mediaUrls: content.mediaUrls,
        mediaIds: content.mediaIds,
        options: content.options as Prisma.InputJsonValue,
        accountIds: content.accountIds,
        providers: content.providers,
        scheduledAt: content.scheduledAt,
        firstComment: content.firstComment,
        draft: content.draft as Prisma.InputJsonValue,
        version: { increment: 1 },
        ...(reapprove
          ? {
              approvalStatus: 'pending',
              approvalRequestedAt: new Date(),
              approvalDecidedAt: null,
              approvalDecidedVia: null,
              approvalDecidedBy: null,
              approvalComment: null,
            }
          : {}),
      },
    });
    return count === 1;
  }

  /**
   * Turns the draft (still at `version`) into the job `fields` describes, in the caller's
   * transaction; its request is dropped. Locks the row until commit. False: no longer that draft.
   */
  async send(
    tx: Db,
    orgId: string,
    id: string,
    version: number,
    fields: {
      status: 'queued' | 'scheduled';
      text: string;
      mediaUrls: string[];
      mediaIds: string[];
      providers: string[];
      scheduledAt: Date | null;
      thread: { text: string; media_ids: string[] }[] | null;
      /** The approval the publish was allowed on (null: none asked): unchanged meanwhile, or nothing is sent. */
      approvalStatus: string | null;
    },
  ): Promise<boolean> {
    const { count } = await tx.job.updateMany({
      where: { id, orgId, status: 'draft', version, approvalStatus: fields.approvalStatus },
      data: {
        status: fields.status,
        text: fields.text,
        mediaUrls: fields.mediaUrls,
        mediaIds: fields.mediaIds,
        providers: fields.providers,
        scheduledAt: fields.scheduledAt,
        thread: fields.thread ?? undefined,
        queuedAt: fields.status === 'queued' ? new Date() : null,
        draft: Prisma.DbNull,
        version: { increment: 1 },
      },
    });
    return count === 1;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.db.job.deleteMany({ where: { id, orgId, status: 'draft' } });
    return count === 1;
  }
}

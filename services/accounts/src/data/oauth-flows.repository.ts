import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type OAuthFlowRow = Prisma.OAuthFlowGetPayload<object>;

export class OAuthFlowsRepository {
  constructor(private readonly db: PrismaClient) {}

  create(data: Prisma.OAuthFlowUncheckedCreateInput): Promise<OAuthFlowRow> {
    return this.db.oAuthFlow.create({ data });
  }

  /** Marks the flow used and returns it, or null when it is unknown, used or expired: a state works once. */
  async consume(id: string): Promise<OAuthFlowRow | null> {
    const { count } = await this.db.oAuthFlow.updateMany({
      where: { id, usedAt: null, expiresAt: { gt: new Date() } },
      data: { usedAt: new Date() },
    });
    return count === 1 ? this.db.oAuthFlow.findUnique({ where: { id } }) : null;
  }

  find(id: string): Promise<OAuthFlowRow | null> {
    return this.db.oAuthFlow.findUnique({ where: { id } });
  }

  async prune(olderThan: Date): Promise<number> {
    const { count } = await this.db.oAuthFlow.deleteMany({ where: { expiresAt: { lt: olderThan } } });
    return count;
  }
}

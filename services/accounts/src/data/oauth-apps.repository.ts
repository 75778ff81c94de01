import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type OAuthAppRow = Prisma.OAuthAppGetPayload<object>;

export class OAuthAppsRepository {
  constructor(private readonly db: PrismaClient) {}

  list(orgId: string, provider?: string): Promise<OAuthAppRow[]> {
    return this.db.oAuthApp.findMany({
      where: { orgId, ...(provider === undefined ? {} : { provider }) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  find(orgId: string, id: string): Promise<OAuthAppRow | null> {
    return this.db.oAuthApp.findFirst({ where: { orgId, id } });
  }

  findById(id: string): Promise<OAuthAppRow | null> {
    return this.db.oAuthApp.findUnique({ where: { id } });
  }

  create(data: Prisma.OAuthAppUncheckedCreateInput): Promise<OAuthAppRow> {
    return this.db.oAuthApp.create({ data });
  }

  updateSecret(id: string, clientSecret: string): Promise<OAuthAppRow> {
    return this.db.oAuthApp.update({ where: { id }, data: { clientSecret } });
  }

  all(): Promise<OAuthAppRow[]> {
    return this.db.oAuthApp.findMany({ orderBy: { id: 'asc' } });
  }
}

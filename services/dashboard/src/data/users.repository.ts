import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
}

/** Dashboard users (not tenant-scoped: a user may belong to several organizations). */
export class UsersRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(user: UserRecord, db: Db = this.db): Promise<void> {
    await db.user.create({ data: user });
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    return this.db.user.findUnique({ where: { email }, select: { id: true, email: true, passwordHash: true } });
  }

  async findById(id: string): Promise<UserRecord | null> {
    return this.db.user.findUnique({ where: { id }, select: { id: true, email: true, passwordHash: true } });
  }
}

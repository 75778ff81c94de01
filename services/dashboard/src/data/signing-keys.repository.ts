import type { PrismaClient } from '../generated/prisma/client.ts';

export interface SigningKeyRecord {
  kid: string;
  generation: number;
  privateKeyEnc: string;
  publicJwk: Record<string, unknown>;
  activatesAt: Date;
}

/** The JWT signing keys, oldest generation first. */
export class SigningKeysRepository {
  constructor(private readonly db: PrismaClient) {}

  async all(): Promise<SigningKeyRecord[]> {
    const rows = await this.db.signingKey.findMany({ orderBy: { generation: 'asc' } });
    return rows.map((row) => ({
      kid: row.kid,
      generation: row.generation,
      privateKeyEnc: row.privateKeyEnc,
      publicJwk: row.publicJwk as Record<string, unknown>,
      activatesAt: row.activatesAt,
    }));
  }

  /** Inserts the key unless its generation exists (another replica rotated first); true when inserted. */
  async insert(key: SigningKeyRecord): Promise<boolean> {
    const { count } = await this.db.signingKey.createMany({
      data: [{ ...key, publicJwk: key.publicJwk as object }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** Deletes the keys of generations below `generation` (no longer published). */
  async deleteBefore(generation: number): Promise<number> {
    return (await this.db.signingKey.deleteMany({ where: { generation: { lt: generation } } })).count;
  }
}

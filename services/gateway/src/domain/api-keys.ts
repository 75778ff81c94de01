import { randomUUID } from 'node:crypto';
import { notFound } from '@svc/errors';
import { generateApiKey, hashApiKey } from '../auth/api-key-codec.ts';
import { scopeOf, type ApiKeyScope } from '../auth/principal.ts';
import type { ApiKeyRecord, ApiKeysRepository } from '../data/api-keys.repository.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scope: ApiKeyScope;
  created_at: string;
  last_used_at: string | null;
}

function view(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    scope: scopeOf(record.scope),
    created_at: record.createdAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}

/** API key use cases. The key itself exists only in the create response; only its HMAC is stored. */
export class ApiKeyService {
  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly pepper: string,
  ) {}

  async create(input: {
    orgId: string;
    userId: string;
    name: string;
    scope: ApiKeyScope;
  }): Promise<ApiKeyView & { key: string }> {
    for (;;) {
      const { key, prefix } = generateApiKey();
      const record = await this.repository.create({
        id: randomUUID(),
        orgId: input.orgId,
        name: input.name,
        prefix,
        hash: hashApiKey(key, this.pepper),
        scope: input.scope,
        createdBy: input.userId,
      });
      if (record !== false) return { ...view(record), key };
    }
  }

  async list(orgId: string): Promise<ApiKeyView[]> {
    return (await this.repository.listActive(orgId)).map(view);
  }

  async revoke(orgId: string, id: string): Promise<void> {
    if (!UUID.test(id) || !(await this.repository.revoke(orgId, id))) throw notFound('The API key');
  }
}

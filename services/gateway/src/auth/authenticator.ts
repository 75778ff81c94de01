import { AppError, forbidden, unauthorized } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { ApiKeysRepository } from '../data/api-keys.repository.ts';
import type { OrganizationsRepository } from '../data/organizations.repository.ts';
import type { AuthMode } from '../openapi/operation.ts';
import { apiKeyMatches, apiKeyPrefix, looksLikeApiKey } from './api-key-codec.ts';
import type { DashboardClaims } from './jwt-verifier.ts';
import { scopeOf, type Principal } from './principal.ts';

export interface AuthenticatorDeps {
  verifyJwt: (token: string) => Promise<DashboardClaims>;
  apiKeys: ApiKeysRepository;
  organizations: OrganizationsRepository;
  pepper: string;
  logger: Logger;
}

const BEARER = /^Bearer ([^\s]+)$/i;
const TOUCH_EVERY_MS = 60_000;

/**
 * Turns an Authorization header into a Principal for an operation's auth mode. API keys are looked
 * up on every request (by their non-secret prefix, then compared in constant time), so a revoked key
 * is refused at once; `last_used_at` is written at most once a minute per key.
 */
export class Authenticator {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly deps: AuthenticatorDeps) {}

  async authenticate(header: string | undefined, mode: Exclude<AuthMode, 'none'>): Promise<Principal> {
    if (header === undefined || header.trim() === '') {
      throw unauthorized('An Authorization header with a Bearer API key or dashboard token is required.');
    }
    const match = BEARER.exec(header.trim());
    if (match === null) throw unauthorized('The Authorization header must have the form "Bearer <credential>".');
    const credential = match[1]!;
    if (looksLikeApiKey(credential)) {
      const principal = await this.apiKey(credential);
      if (mode === 'jwt')
        throw forbidden('This endpoint accepts only a dashboard token; API keys are not allowed here.');
      return principal;
    }
    const claims = await this.deps.verifyJwt(credential);
    await this.deps.organizations.ensure(claims.orgId);
    return {
      kind: 'jwt',
      orgId: claims.orgId,
      userId: claims.userId,
      ...(claims.orgName === undefined ? {} : { orgName: claims.orgName }),
    };
  }

  private async apiKey(key: string): Promise<Principal> {
    const prefix = apiKeyPrefix(key);
    const record = prefix === undefined ? null : await this.deps.apiKeys.findByPrefix(prefix);
    if (record === null || !apiKeyMatches(key, record.hash, this.deps.pepper))
      throw unauthorized('The API key is not valid.');
    if (record.revokedAt !== null) throw new AppError('unauthorized', 'The API key has been revoked.');
    this.touch(record.id);
    return { kind: 'api_key', orgId: record.orgId, apiKeyId: record.id, scope: scopeOf(record.scope) };
  }

  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.lastTouched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.lastTouched.set(id, now);
    this.deps.apiKeys
      .touch(id, new Date(now))
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not record API key use'));
  }
}

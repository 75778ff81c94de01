import { hashOf, randomToken } from './ids.ts';
import { type AuthCode, type TokenCheck, type TokenFamily, type TokenRecord } from './types.ts';

export interface IssueInput {
  family: TokenFamily;
  subject: string;
  root?: string;
  clientId: string;
  scopes: string[];
  accessPrefix: string;
  accessTtlSeconds: number | undefined;
  refreshPrefix?: string;
  refreshTtlSeconds?: number;
}

export interface IssuedPair {
  accessToken: string;
  access: TokenRecord;
  refreshToken: string | undefined;
  refresh: TokenRecord | undefined;
}

/**
 * Tokens and authorization codes. docs/api-conventions.md, "The network sandbox": a token beginning
 * `invalid_` is always rejected; any other token the sandbox has not issued is accepted as a BYOK
 * token, acting as a stable subject derived from the token itself.
 */
export class TokenStore {
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, AuthCode>();

  constructor(private readonly now: () => number) {}

  issue(input: IssueInput): IssuedPair {
    const issuedAt = this.now();
    const root = input.root ?? input.subject;
    const base = {
      family: input.family,
      subject: input.subject,
      root,
      clientId: input.clientId,
      scopes: input.scopes,
      issuedAt,
      revoked: false,
      used: false,
    };
    const accessToken = randomToken(input.accessPrefix);
    const access: TokenRecord = {
      ...base,
      kind: 'access',
      expiresAt: input.accessTtlSeconds === undefined ? undefined : issuedAt + input.accessTtlSeconds * 1000,
    };
    this.tokens.set(accessToken, access);
    if (input.refreshPrefix === undefined) return { accessToken, access, refreshToken: undefined, refresh: undefined };
    const refreshToken = randomToken(input.refreshPrefix);
    const refresh: TokenRecord = {
      ...base,
      kind: 'refresh',
      expiresAt: input.refreshTtlSeconds === undefined ? undefined : issuedAt + input.refreshTtlSeconds * 1000,
    };
    this.tokens.set(refreshToken, refresh);
    return { accessToken, access, refreshToken, refresh };
  }

  get(token: string): TokenRecord | undefined {
    return this.tokens.get(token);
  }

  /** Checks an access token presented to an API of `family`. */
  check(family: TokenFamily, token: string | undefined): TokenCheck {
    if (!token || token.startsWith('invalid_')) return { status: 'invalid' };
    const record = this.tokens.get(token);
    if (!record) return { status: 'ok', subject: `byok:${family}:${hashOf(token)}`, record: undefined };
    if (record.family !== family || record.kind !== 'access') return { status: 'invalid' };
    if (record.revoked) return { status: 'revoked' };
    if (record.expiresAt !== undefined && record.expiresAt <= this.now()) return { status: 'expired' };
    return { status: 'ok', subject: record.subject, record };
  }

  /** Revokes every token sharing `root` (the user's grant to the app). */
  revokeRoot(root: string): void {
    for (const record of this.tokens.values()) if (record.root === root) record.revoked = true;
  }

  revokeToken(token: string): boolean {
    const record = this.tokens.get(token);
    if (!record) return false;
    record.revoked = true;
    return true;
  }

  saveCode(code: string, record: AuthCode): void {
    this.codes.set(code, record);
  }

  getCode(code: string): AuthCode | undefined {
    return this.codes.get(code);
  }

  clear(): void {
    this.tokens.clear();
    this.codes.clear();
  }
}

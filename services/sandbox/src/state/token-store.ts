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

/** The subject a BYOK token (one the sandbox did not issue) acts as, and the root of its grant. */
export const byokSubject = (family: TokenFamily, token: string) => `byok:${family}:${hashOf(token)}`;

/**
 * Tokens and authorization codes. docs/api-conventions.md, "The network sandbox": a token beginning
 * `invalid_` is always rejected; any other token the sandbox has not issued is accepted as a BYOK
 * token, acting as a stable subject derived from the token itself, until its grant is revoked.
 */
export class TokenStore {
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, AuthCode>();
  /** BYOK grants revoked: a BYOK token has no record to mark, so its subject is remembered instead. */
  private readonly revokedByok = new Set<string>();

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
    if (!record) {
      const subject = byokSubject(family, token);
      return this.revokedByok.has(subject) ? { status: 'revoked' } : { status: 'ok', subject, record: undefined };
    }
    if (record.family !== family || record.kind !== 'access') return { status: 'invalid' };
    if (record.revoked) return { status: 'revoked' };
    if (record.expiresAt !== undefined && record.expiresAt <= this.now()) return { status: 'expired' };
    return { status: 'ok', subject: record.subject, record };
  }

  /**
   * Revokes every token sharing `root` (the user's grant to the app). Tokens issued under the same
   * root later (the user authorizing the app again) are a new grant and work. A BYOK root stays
   * revoked: the token it stands for is refused from now on.
   */
  revokeRoot(root: string): void {
    for (const record of this.tokens.values()) if (record.root === root) record.revoked = true;
    if (root.startsWith('byok:')) this.revokedByok.add(root);
  }

  /**
   * Revokes the grant behind a token presented to a `family` API, as a user removing the app does:
   * an issued token's whole grant (access, refresh and Page tokens derived from it), or a BYOK
   * token's own grant (and the Page tokens derived from it).
   */
  revokeGrant(family: TokenFamily, token: string): void {
    if (token.startsWith('invalid_')) return;
    this.revokeRoot(this.tokens.get(token)?.root ?? byokSubject(family, token));
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
    this.revokedByok.clear();
  }
}

import { AppError } from '@svc/errors';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';

export interface JwtSettings {
  algorithm: 'HS256' | 'RS256' | 'ES256';
  secret?: string | undefined;
  jwksUrl?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
}

export interface DashboardClaims {
  userId: string;
  orgId: string;
  /** The organization's display name (`org_name`), when the dashboard sends one: shown to people, never trusted. */
  orgName?: string;
}

const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A display name: 1 to 100 characters, no control characters (it is shown on pages, escaped). */
const ORG_NAME = /^[^\p{Cc}]{1,100}$/u;

function invalid(message: string, cause?: unknown): AppError {
  return new AppError('unauthorized', message, cause === undefined ? {} : { cause });
}

function describe(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) return invalid('The dashboard token has expired.', error);
  if (error instanceof errors.JOSEAlgNotAllowed)
    return invalid('The dashboard token is signed with an algorithm this API does not accept.', error);
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return invalid('The dashboard token signature is invalid.', error);
  if (error instanceof errors.JWTClaimValidationFailed)
    return invalid(`The dashboard token is not acceptable: ${error.message}.`, error);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return invalid('The dashboard token is malformed.', error);
  if (error instanceof errors.JWKSNoMatchingKey)
    return invalid('The dashboard token was signed by an unknown key.', error);
  return invalid('The dashboard token could not be verified.', error);
}

/** Tokens remembered as verified, at most; the oldest is forgotten first. */
const CACHE_MAX = 10_000;
/**
 * How long a verified token is taken on its word before it is verified again (never past its `exp`):
 * with JWKS keys, a key withdrawn from the set stops being accepted within this long.
 */
const CACHE_TTL_MS = 60_000;

/**
 * Verifies dashboard JWTs with the one algorithm pinned by config (RFC 8725: never trust the
 * token's own `alg`), requiring `sub`, `org_id` and `exp`, and `iss`/`aud` when configured.
 *
 * A token verified once is remembered (the exact string, so a changed byte is verified afresh) until
 * its `exp` or for CACHE_TTL_MS, whichever comes first: a dashboard client sends the same token on
 * every call, and verifying it (HMAC or signature, JSON, claims) was ~10% of the gateway's CPU per
 * accepted post (docs/performance.md, "Accept path"). A JWT cannot be revoked before `exp` anyway.
 */
export function createJwtVerifier(settings: JwtSettings): (token: string) => Promise<DashboardClaims> {
  const verified = new Map<string, { claims: DashboardClaims; until: number }>();
  const verify = createUncachedJwtVerifier(settings);
  return async (token) => {
    const hit = verified.get(token);
    if (hit !== undefined && Date.now() < hit.until) return hit.claims;
    verified.delete(token);
    const { claims, expiresAtMs } = await verify(token);
    if (verified.size >= CACHE_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, { claims, until: Math.min(expiresAtMs, Date.now() + CACHE_TTL_MS) });
    return claims;
  };
}

function createUncachedJwtVerifier(
  settings: JwtSettings,
): (token: string) => Promise<{ claims: DashboardClaims; expiresAtMs: number }> {
  const key: Uint8Array | JWTVerifyGetKey =
    settings.algorithm === 'HS256'
      ? new TextEncoder().encode(settings.secret)
      : createRemoteJWKSet(new URL(settings.jwksUrl ?? ''), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
  const options = {
    algorithms: [settings.algorithm],
    requiredClaims: ['sub', 'exp'],
    ...(settings.issuer === undefined ? {} : { issuer: settings.issuer }),
    ...(settings.audience === undefined ? {} : { audience: settings.audience }),
  };
  return async (token) => {
    let payload;
    try {
      ({ payload } =
        typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
    } catch (error) {
      throw describe(error);
    }
    const orgId = payload.org_id;
    if (typeof orgId !== 'string' || !ORG_ID.test(orgId)) {
      throw invalid('The dashboard token needs an org_id claim of 1 to 64 letters, digits, "_" or "-".');
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0)
      throw invalid('The dashboard token needs a sub claim.');
    const orgName = payload.org_name;
    if (orgName !== undefined && (typeof orgName !== 'string' || !ORG_NAME.test(orgName)))
      throw invalid(
        "The dashboard token's org_name claim, when present, must be 1 to 100 characters without control characters.",
      );
    // `exp` is required and checked by jwtVerify, so it is a number of seconds here.
    return {
      claims: { userId: payload.sub, orgId, ...(orgName === undefined ? {} : { orgName }) },
      expiresAtMs: (payload.exp ?? 0) * 1000,
    };
  };
}

import { AppError } from '@svc/errors';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';

export interface JwtSettings {
  /**
   * The algorithm pinned when one key source is given. With both `secret` and `jwksUrl`, HS256 goes
   * to the secret and the JWKS takes this algorithm when it is RS256 or ES256, ES256 otherwise.
   */
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
 * Verifies dashboard JWTs with the algorithms config allows, each pinned to its own key source
 * (RFC 8725: never trust the token's own `alg`): one algorithm when one source is configured, HS256
 * with the secret and ES256 (or RS256) with the JWKS when both are. Requires `sub`, `org_id` and
 * `exp`, and `iss`/`aud` when configured.
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

/**
 * The key of each accepted algorithm, each algorithm bound to its own source: HS256 only ever to the
 * secret, RS256/ES256 only ever to the JWKS. jose picks by the token's `alg` among these only, and
 * refuses a key of the wrong type for it, so an HS256 token keyed with a published public key (the
 * classic algorithm confusion) meets the secret and fails its signature.
 */
function keySources(settings: JwtSettings): { algorithms: string[]; key: JWTVerifyGetKey } {
  const secret = settings.secret === undefined ? undefined : new TextEncoder().encode(settings.secret);
  const jwks =
    settings.jwksUrl === undefined
      ? undefined
      : createRemoteJWKSet(new URL(settings.jwksUrl), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
  const both = secret !== undefined && jwks !== undefined;
  const jwksAlgorithm = settings.algorithm === 'HS256' ? 'ES256' : settings.algorithm;
  const algorithms = both ? ['HS256', jwksAlgorithm] : [settings.algorithm];
  return {
    algorithms,
    key: (header, token) => {
      if (header.alg === 'HS256' && secret !== undefined) return secret;
      if (jwks !== undefined && header.alg !== 'HS256') return jwks(header, token);
      // An algorithm outside `algorithms` never gets here (jose refuses it first); this is the pinned
      // one without its key material, which config validation rules out.
      throw new errors.JOSEAlgNotAllowed("no key source for the token's algorithm");
    },
  };
}

function createUncachedJwtVerifier(
  settings: JwtSettings,
): (token: string) => Promise<{ claims: DashboardClaims; expiresAtMs: number }> {
  const { algorithms, key } = keySources(settings);
  const options = {
    algorithms,
    requiredClaims: ['sub', 'exp'],
    ...(settings.issuer === undefined ? {} : { issuer: settings.issuer }),
    ...(settings.audience === undefined ? {} : { audience: settings.audience }),
  };
  return async (token) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, key, options));
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

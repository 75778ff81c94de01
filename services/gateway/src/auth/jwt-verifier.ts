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
}

const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

function invalid(message: string, cause?: unknown): AppError {
  return new AppError('unauthorized', message, cause === undefined ? {} : { cause });
}

function describe(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) return invalid('The dashboard token has expired.', error);
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid('The dashboard token is signed with an algorithm this API does not accept.', error);
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('The dashboard token signature is invalid.', error);
  if (error instanceof errors.JWTClaimValidationFailed) return invalid(`The dashboard token is not acceptable: ${error.message}.`, error);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return invalid('The dashboard token is malformed.', error);
  if (error instanceof errors.JWKSNoMatchingKey) return invalid('The dashboard token was signed by an unknown key.', error);
  return invalid('The dashboard token could not be verified.', error);
}

/**
 * Verifies dashboard JWTs with the one algorithm pinned by config (RFC 8725: never trust the
 * token's own `alg`), requiring `sub`, `org_id` and `exp`, and `iss`/`aud` when configured.
 */
export function createJwtVerifier(settings: JwtSettings): (token: string) => Promise<DashboardClaims> {
  const key: Uint8Array | JWTVerifyGetKey = settings.algorithm === 'HS256'
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
      ({ payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
    } catch (error) {
      throw describe(error);
    }
    const orgId = payload.org_id;
    if (typeof orgId !== 'string' || !ORG_ID.test(orgId)) {
      throw invalid('The dashboard token needs an org_id claim of 1 to 64 letters, digits, "_" or "-".');
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw invalid('The dashboard token needs a sub claim.');
    return { userId: payload.sub, orgId };
  };
}

import { AppError } from '@svc/errors';
import { SignJWT } from 'jose';
import { defineRoute, type Route } from '../http/route.ts';
import { DEV_ORG_ID } from '../openapi/dev.schemas.ts';
import { operations } from '../openapi/operations.ts';

const LIFETIME_SECONDS = 15 * 60;
/** The `sub` of development tokens: no user signs in, the token stands for the developer at the machine. */
export const DEV_USER_ID = 'user_dev';

export interface DevTokenSettings {
  /** NODE_ENV=development with JWT_SECRET set: anywhere else the endpoint answers 404. */
  enabled: boolean;
  secret?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
}

export const devTokenSettings = (config: {
  NODE_ENV: string;
  JWT_SECRET?: string | undefined;
  JWT_ISSUER?: string | undefined;
  JWT_AUDIENCE?: string | undefined;
}): DevTokenSettings => ({
  enabled: config.NODE_ENV === 'development' && config.JWT_SECRET !== undefined,
  secret: config.JWT_SECRET,
  issuer: config.JWT_ISSUER,
  audience: config.JWT_AUDIENCE,
});

/**
 * `POST /v1/dev/token`: a dashboard token for a local run, so a newcomer (or `svc dev token`) can call
 * the API without minting one by hand. It carries the claims the gateway's verifier requires (`sub`,
 * `org_id`, `exp` 15 minutes ahead; `iss`/`aud` when configured). Outside development it does not exist.
 */
export function devTokenRoutes(settings: DevTokenSettings): Route[] {
  return [
    defineRoute(operations.createDevToken, async ({ body }) => {
      if (!settings.enabled || settings.secret === undefined)
        throw new AppError(
          'not_found',
          'POST /v1/dev/token exists only in development (NODE_ENV=development with JWT_SECRET set).',
        );
      const orgId = body?.org_id ?? DEV_ORG_ID;
      const expiresAt = Math.floor(Date.now() / 1000) + LIFETIME_SECONDS;
      let jwt = new SignJWT({ org_id: orgId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(DEV_USER_ID)
        .setIssuedAt()
        .setExpirationTime(expiresAt);
      if (settings.issuer !== undefined) jwt = jwt.setIssuer(settings.issuer);
      if (settings.audience !== undefined) jwt = jwt.setAudience(settings.audience);
      const token = await jwt.sign(new TextEncoder().encode(settings.secret));
      return { status: 201, body: { token, org_id: orgId, expires_at: new Date(expiresAt * 1000).toISOString() } };
    }),
  ];
}

import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from '@svc/logger';
import type { IdentityDeps } from './domain/identity.ts';
import type { KeyRing } from './domain/key-ring.ts';
import { apiProxy } from './http/api-proxy.ts';
import { authRoutes } from './http/auth.routes.ts';
import { errorHandler, notFoundHandler, requestId } from '@svc/http-server';
import type { SessionCookie } from './http/session-cookie.ts';
import { requireSession, sameOrigin } from './http/session-guard.ts';
import { webApp } from './http/web-app.ts';

export interface AppDeps {
  logger: Logger;
  identity: IdentityDeps;
  keys: KeyRing;
  cookie: SessionCookie;
  publicUrl: string;
  gatewayUrl: string;
  bodyLimitBytes: number;
  gatewayTimeoutMs: number;
  trustProxyHops: number;
  /** The built pages' folder (see DASHBOARD_WEB_DIR); undefined serves none. */
  webDir?: string;
  /** Readiness: false while starting or draining. */
  isReady: () => boolean;
}

/**
 * The JWKS may be cached this long. A new key is published SIGNING_KEY_PUBLISH_AHEAD_SECONDS before
 * it signs, which must cover this plus the gateway's 30 s between fetches.
 */
const JWKS_MAX_AGE_SECONDS = 15;

/** The dashboard's HTTP application, without listen() so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  app.set('query parser', 'simple');
  app.use(requestId);

  app.get('/health', (_req: Request, res: Response) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/ready', (_req: Request, res: Response) => {
    const ready = deps.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });
  app.get('/.well-known/jwks.json', async (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.status(200).json({ keys: await deps.keys.published() });
  });

  app.use(sameOrigin(deps.publicUrl));
  // Only JSON: a cross-site form cannot send it without a CORS preflight, which is never granted.
  const json = express.json({ limit: deps.bodyLimitBytes, type: 'application/json', strict: true });
  app.use('/auth', json, authRoutes({ identity: deps.identity, cookie: deps.cookie, publicUrl: deps.publicUrl }));
  app.use(
    '/api',
    apiProxy({
      gatewayUrl: deps.gatewayUrl,
      minter: deps.identity.minter,
      bodyLimitBytes: deps.bodyLimitBytes,
      timeoutMs: deps.gatewayTimeoutMs,
      logger: deps.logger,
      session: requireSession(deps.identity, deps.cookie),
    }),
  );
  if (deps.webDir !== undefined) app.use(webApp(deps.webDir));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

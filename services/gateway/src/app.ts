import express, { type Express } from 'express';
import type { Logger } from '@svc/logger';
import type { Registry } from 'prom-client';
import type { Authenticator } from './auth/authenticator.ts';
import { errorHandler, notFoundHandler } from './http/error-handler.ts';
import { mountRoutes } from './http/mount-routes.ts';
import { requestId } from './http/request-id.ts';
import type { Route } from './http/route.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';

export interface AppDeps {
  logger: Logger;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  routes: readonly Route[];
  bodyLimitBytes: number;
  trustProxyHops: number;
  /** Readiness: false while starting or draining, or when RabbitMQ is unreachable. */
  isReady: () => boolean;
  registry: Registry;
  validateResponses: boolean;
  observe?: (labels: { method: string; route: string; status: number }, seconds: number) => void;
}

/** The gateway's HTTP application, without listen() so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  app.set('query parser', 'simple');
  app.use(requestId);
  // Bodies verified by a signature over their exact bytes (Stripe webhooks) are kept raw; the JSON
  // parser below skips a body already read.
  const rawPaths = deps.routes.filter((route) => route.operation.rawBody !== undefined).map((route) => route.operation.path);
  if (rawPaths.length > 0) app.use(rawPaths, express.raw({ limit: deps.bodyLimitBytes, type: () => true }));
  app.use(express.json({ limit: deps.bodyLimitBytes, type: ['application/json', 'application/*+json'], strict: true }));

  app.get('/ready', (_req, res) => {
    const ready = deps.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });

  const router = express.Router();
  mountRoutes(router, deps.routes, deps);
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from '@svc/logger';
import type { Authenticator } from './auth/authenticator.ts';
import { mountRoutes } from './http/mount-routes.ts';
import { errorHandler, notFoundHandler, requestId } from '@svc/http-server';
import type { Route } from './http/route.ts';
import { mountMcpEndpoint, type McpEndpointOptions } from './mcp/mcp-endpoint.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';

export interface AppDeps {
  logger: Logger;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  routes: readonly Route[];
  bodyLimitBytes: number;
  /** The JSON body limit of operations declaring `largeBody` (a bulk of posts); bodyLimitBytes when absent. */
  largeBodyLimitBytes?: number;
  trustProxyHops: number;
  /** Readiness: false while starting or draining, or when RabbitMQ is unreachable. */
  isReady: () => boolean;
  validateResponses: boolean;
  observe?: (labels: { method: string; route: string; status: number }, seconds: number) => void;
  /** The MCP endpoint (`POST /mcp`); not mounted when absent. */
  mcp?: McpEndpointOptions;
}

/** The gateway's HTTP application, without listen() so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  app.set('query parser', 'simple');
  app.use(requestId);

  app.get('/ready', (_req, res) => {
    const ready = deps.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });

  // Bodies are parsed per route after authentication (mount-routes.ts): an anonymous client cannot
  // make the gateway read and parse a megabyte of JSON.
  // Bodies verified by a signature over their exact bytes (Stripe webhooks) are kept raw.
  const jsonParser = express.json({
    limit: deps.bodyLimitBytes,
    type: ['application/json', 'application/*+json'],
    strict: true,
  });
  const largeJsonParser = express.json({
    limit: deps.largeBodyLimitBytes ?? deps.bodyLimitBytes,
    type: ['application/json', 'application/*+json'],
    strict: true,
  });
  const rawParser = express.raw({ limit: deps.bodyLimitBytes, type: () => true });
  const parseBody = (req: Request, res: Response, raw: boolean, large = false) =>
    new Promise<void>((resolve, reject) =>
      (raw ? rawParser : large ? largeJsonParser : jsonParser)(req, res, (error?: unknown) =>
        error === undefined ? resolve() : reject(error as Error),
      ),
    );
  if (deps.mcp !== undefined)
    mountMcpEndpoint(app, { ...deps.mcp, ...deps, parseJson: (req, res) => parseBody(req, res, false) });
  const router = express.Router();
  mountRoutes(router, deps.routes, { ...deps, parseBody });
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

// The gateway: authentication, validation and rate limits at the edge; everything else is RPC and
// commands to the services that own the data.
import path from 'node:path';
import { exitOnConfigError } from '@svc/config';
import { createLogger } from '@svc/logger';
import { exitOnSignal, openServiceRuntime } from '@svc/runtime';
import { Redis } from 'ioredis';
import { createApp } from './app.ts';
import { Authenticator } from './auth/authenticator.ts';
import { createJwtVerifier } from './auth/jwt-verifier.ts';
import { loadGatewayConfig } from './config.ts';
import { ApiKeysRepository } from './data/api-keys.repository.ts';
import { OrganizationsRepository } from './data/organizations.repository.ts';
import { ApiKeyService } from './domain/api-keys.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import { buildOpenApiDocument } from './openapi/build-openapi.ts';
import { operations } from './openapi/operations.ts';
import { RateLimiter } from './rate-limit/rate-limiter.ts';
import { rpcCaller } from './http/rpc-caller.ts';
import { accountRoutes } from './routes/accounts.routes.ts';
import { apiKeyRoutes } from './routes/api-keys.routes.ts';
import { oauthRoutes } from './routes/oauth.routes.ts';
import { healthRoutes } from './routes/health.routes.ts';

async function main(): Promise<void> {
  const config = exitOnConfigError('gateway', () => loadGatewayConfig());
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const runtime = await openServiceRuntime({
    name: 'gateway',
    serviceDir: path.resolve(__dirname, '..'),
    config,
    logger,
    createClient: (adapter) => new PrismaClient({ adapter }),
  });
  await runtime.broker.serveRpc({ messages: [], handlers: {} });

  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis unavailable; rate limits count per replica'));
  const apiKeys = new ApiKeysRepository(runtime.db);
  const authenticator = new Authenticator({
    verifyJwt: createJwtVerifier({
      algorithm: config.JWT_ALGORITHM,
      secret: config.JWT_SECRET,
      jwksUrl: config.JWT_JWKS_URL,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
    }),
    apiKeys,
    organizations: new OrganizationsRepository(runtime.db),
    pepper: config.API_KEY_PEPPER,
    logger,
  });
  const rpc = rpcCaller(runtime.broker);
  const openApiDocument = buildOpenApiDocument(Object.values(operations), config.PUBLIC_BASE_URL);
  let draining = false;
  const app = createApp({
    logger,
    authenticator,
    rateLimiter: new RateLimiter(redis, { perKey: config.RATE_LIMIT_PER_KEY, perOrg: config.RATE_LIMIT_PER_ORG, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS }),
    routes: [
      ...healthRoutes(openApiDocument),
      ...apiKeyRoutes(new ApiKeyService(apiKeys, config.API_KEY_PEPPER)),
      ...accountRoutes(rpc),
      ...oauthRoutes(rpc, config.OAUTH_SUCCESS_REDIRECT),
    ],
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    isReady: () => !draining && runtime.broker.isConnected(),
    registry: runtime.metrics.registry,
    validateResponses: config.NODE_ENV !== 'production',
    observe: createHttpMetrics(runtime.metrics.registry),
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    logger.info({ port: typeof address === 'object' && address !== null ? address.port : config.PORT }, 'gateway ready');
  });
  exitOnSignal({
    logger,
    graceMs: config.SHUTDOWN_GRACE_MS,
    steps: () => [
      { name: 'readiness', run: () => Promise.resolve(void (draining = true)) },
      { name: 'http', run: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); }) },
      { name: 'runtime', run: runtime.stop },
      { name: 'redis', run: async () => void (await redis.quit().catch(() => undefined)) },
    ],
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});

import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { openPgDatabase, type PgDatabase } from '@svc/db';
import { createLogger, type Logger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { createTestDatabase, TEST_AMQP_URL, TEST_REDIS_URL, uniqueName, uniqueNamespace } from '@svc/testing';
import type { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { createApp } from '../src/app.ts';
import { Authenticator } from '../src/auth/authenticator.ts';
import { createJwtVerifier } from '../src/auth/jwt-verifier.ts';
import { ApiKeysRepository } from '../src/data/api-keys.repository.ts';
import { OrganizationsRepository } from '../src/data/organizations.repository.ts';
import { ApiKeyService } from '../src/domain/api-keys.ts';
import { defineRoute, type Route } from '../src/http/route.ts';
import { buildOpenApiDocument } from '../src/openapi/build-openapi.ts';
import { defineOperation } from '../src/openapi/operation.ts';
import { operations } from '../src/openapi/operations.ts';
import { RateLimiter, type RateLimitSettings } from '../src/rate-limit/rate-limiter.ts';
import { connectedRedisClient } from '../src/rate-limit/redis-client.ts';
import { apiKeyRoutes } from '../src/routes/api-keys.routes.ts';
import { healthRoutes } from '../src/routes/health.routes.ts';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';
export const PEPPER = 'test-pepper-that-is-at-least-32-characters-long';

/** A route only tests mount: answers who the caller is, for either credential. */
export const whoAmI = defineOperation({
  operationId: 'whoAmI',
  method: 'get',
  path: '/v1/test/whoami',
  summary: 'Test only.',
  tag: 'Test',
  auth: 'api_key_or_jwt',
  responses: { 200: Type.Object({ org_id: Type.String(), kind: Type.String() }) },
  errors: [],
});

export async function signJwt(
  claims: Record<string, unknown>,
  options: { secret?: string; alg?: string; expiresIn?: string | number } = {},
): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256' }).setIssuedAt();
  if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn);
  return jwt.sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

export interface GatewayHarness {
  app: ReturnType<typeof createApp>;
  db: PgDatabase;
  broker: Broker;
  redis: Redis;
  /** The AMQP namespace of this run, for test services that must meet the gateway on the broker. */
  namespace: string;
  /** A valid dashboard token for an organization of its own. */
  token(orgId?: string, userId?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startGatewayHarness(
  options: {
    rateLimit?: Partial<RateLimitSettings>;
    extraRoutes?: (broker: Broker) => Route[];
    trustProxyHops?: number;
    /** Tests reading what the gateway logs pass their own. */
    logger?: Logger;
  } = {},
): Promise<GatewayHarness> {
  const database = await createTestDatabase({ prefix: 'gateway', serviceDir: path.resolve(__dirname, '..') });
  const db = openPgDatabase(database.connection, { max: 4, onPoolError: () => undefined });
  const logger = options.logger ?? createLogger({ service: 'gateway-test', level: 'silent' });
  const namespace = uniqueNamespace('gw');
  const broker = await Broker.connect({ url: TEST_AMQP_URL, namespace, service: 'gateway', logger, rpcTimeoutMs: 500 });
  const redis = await connectedRedisClient(TEST_REDIS_URL);
  const apiKeys = new ApiKeysRepository(db);
  const authenticator = new Authenticator({
    verifyJwt: createJwtVerifier({ algorithm: 'HS256', secret: JWT_SECRET }),
    apiKeys,
    organizations: new OrganizationsRepository(db),
    pepper: PEPPER,
    logger,
  });
  const rateLimiter = new RateLimiter(redis, {
    perKey: 1000,
    perOrg: 1000,
    perAddress: 1000,
    perStripeWebhook: 1000,
    perOAuthCallback: 1000,
    windowSeconds: 60,
    keyPrefix: uniqueName('rl'),
    ...options.rateLimit,
  });
  const whoAmIRoute = defineRoute(whoAmI, ({ principal }) =>
    Promise.resolve({ status: 200, body: { org_id: principal.orgId, kind: principal.kind } }),
  );
  const app = createApp({
    logger,
    authenticator,
    rateLimiter,
    routes: [
      ...healthRoutes(buildOpenApiDocument(Object.values(operations), 'http://127.0.0.1:8080')),
      ...apiKeyRoutes(new ApiKeyService(apiKeys, PEPPER)),
      whoAmIRoute,
      ...(options.extraRoutes?.(broker) ?? []),
    ],
    bodyLimitBytes: 1_048_576,
    trustProxyHops: options.trustProxyHops ?? 0,
    isReady: () => broker.isConnected(),
    validateResponses: true,
  });
  return {
    app,
    db,
    broker,
    redis,
    namespace,
    token: (orgId = uniqueName('org'), userId = 'user_1') =>
      signJwt({ sub: userId, org_id: orgId }, { expiresIn: '10m' }),
    close: async () => {
      await broker.deleteTopology();
      await broker.close();
      redis.disconnect();
      await db.$disconnect();
      await database.drop();
    },
  };
}

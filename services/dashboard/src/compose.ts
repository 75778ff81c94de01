import path from 'node:path';
import { vaultFromConfig } from '@svc/crypto';
import type { Logger } from '@svc/logger';
import type { Redis } from 'ioredis';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { InvitesRepository } from './data/invites.repository.ts';
import { OrganizationsRepository } from './data/organizations.repository.ts';
import { SessionsRepository } from './data/sessions.repository.ts';
import { SigningKeysRepository } from './data/signing-keys.repository.ts';
import { UsersRepository } from './data/users.repository.ts';
import type { IdentityDeps } from './domain/identity.ts';
import { KeyRing } from './domain/key-ring.ts';
import { LoginThrottle } from './domain/login-throttle.ts';
import { TokenMinter } from './domain/token-minter.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { SessionCookie } from './http/session-cookie.ts';

export interface DashboardParts {
  config: Config;
  db: PrismaClient;
  redis: Redis;
  logger: Logger;
  isReady: () => boolean;
  /** Tests: isolates the throttling counters of runs sharing one Redis. */
  throttlePrefix?: string;
  /** Tests: the clock of sessions, invites and signing keys. */
  now?: () => Date;
}

/** Wires the dashboard's app from its parts; main.ts and the tests share it. */
export function composeDashboard(parts: DashboardParts) {
  const { config, db, redis, logger } = parts;
  const now = parts.now ?? (() => new Date());
  const keys = new KeyRing({
    keys: new SigningKeysRepository(db),
    vault: vaultFromConfig(config.VAULT_KEYS, config.VAULT_ACTIVE_KEY_ID),
    rotationMs: config.SIGNING_KEY_ROTATION_DAYS * 86_400_000,
    publishAheadMs: config.SIGNING_KEY_PUBLISH_AHEAD_SECONDS * 1000,
    now,
  });
  const organizations = new OrganizationsRepository(db);
  const minter = new TokenMinter({
    keys,
    issuer: config.DASHBOARD_ISSUER,
    ttlSeconds: config.JWT_TTL_SECONDS,
    orgName: (orgId) => organizations.nameOf(orgId),
    now: () => now().getTime(),
  });
  const identity: IdentityDeps = {
    db,
    users: new UsersRepository(db),
    organizations,
    sessions: new SessionsRepository(db),
    invites: new InvitesRepository(db),
    throttle: new LoginThrottle(redis, {
      failuresPerAddress: config.LOGIN_FAILURES_PER_ADDRESS,
      failuresPerAccount: config.LOGIN_FAILURES_PER_ACCOUNT,
      signupsPerAddress: config.SIGNUPS_PER_ADDRESS,
      windowSeconds: config.LOGIN_THROTTLE_WINDOW_SECONDS,
      ...(parts.throttlePrefix === undefined ? {} : { keyPrefix: parts.throttlePrefix }),
    }),
    minter,
    sessionTtlMs: config.SESSION_TTL_HOURS * 3_600_000,
    inviteTtlMs: config.INVITE_TTL_HOURS * 3_600_000,
    now,
  };
  const cookie = new SessionCookie(!config.DASHBOARD_INSECURE_COOKIES, config.SESSION_TTL_HOURS * 3600);
  const app = createApp({
    logger,
    identity,
    keys,
    cookie,
    publicUrl: config.DASHBOARD_PUBLIC_URL,
    gatewayUrl: config.GATEWAY_URL,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    gatewayTimeoutMs: config.GATEWAY_TIMEOUT_MS,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    isReady: parts.isReady,
    webDir: config.DASHBOARD_WEB_DIR ?? path.resolve(__dirname, '..', 'web', 'dist'),
  });
  return { app, keys, identity, cookie };
}

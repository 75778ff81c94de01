import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createLogger } from '@svc/logger';
import { createTestDatabase, TEST_REDIS_URL, uniqueName, type TestDatabase } from '@svc/testing';
import { Redis } from 'ioredis';
import type { Express } from 'express';
import request from 'supertest';
import { composeDashboard } from '../src/compose.ts';
import { loadServiceConfig } from '../src/config.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

export const PUBLIC_URL = 'https://dashboard.test.local';
export const ISSUER = 'https://dashboard.test.local';
export const PASSWORD = 'correct horse battery staple';

export interface DashboardHarness {
  app: Express;
  parts: ReturnType<typeof composeDashboard>;
  db: PrismaClient;
  /** The clock of sessions, invites and signing keys; tests move it. */
  clock: { now: Date };
  close(): Promise<void>;
}

/** The dashboard app on a throwaway database and its own Redis key prefix; no broker needed. */
export async function startDashboard(env: Record<string, string> = {}): Promise<DashboardHarness> {
  const database: TestDatabase = await createTestDatabase({
    prefix: 'dashboard',
    serviceDir: path.resolve(__dirname, '..'),
  });
  const db = new PrismaClient({ adapter: createPrismaAdapter(database.connection, { max: 4 }) });
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  const config = loadServiceConfig({
    NODE_ENV: 'test',
    VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    DASHBOARD_PUBLIC_URL: PUBLIC_URL,
    DASHBOARD_ISSUER: ISSUER,
    REDIS_URL: TEST_REDIS_URL,
    ...env,
  });
  const clock = { now: new Date() };
  const parts = composeDashboard({
    config,
    db,
    redis,
    logger: createLogger({ service: 'dashboard', level: process.env.HARNESS_LOG_LEVEL ?? 'silent' }),
    isReady: () => true,
    throttlePrefix: uniqueName('dash'),
    now: () => clock.now,
  });
  await parts.keys.rotateIfDue();
  return {
    app: parts.app,
    parts,
    db,
    clock,
    close: async () => {
      redis.disconnect();
      await db.$disconnect();
      await database.drop();
    },
  };
}

/**
 * A browser: sends the session cookie back and the CSRF token the session view gave. (supertest's
 * agent would not: the cookie is Secure and the tests speak plain HTTP.)
 */
export class Browser {
  constructor(
    readonly app: Express,
    public cookie: string,
    public body: SessionBody,
  ) {}

  get csrf(): string {
    return this.body.csrf_token;
  }

  get(path: string) {
    return request(this.app).get(path).set('Cookie', this.cookie);
  }

  post(path: string, body: object = {}, csrf: string | null = this.csrf) {
    const req = request(this.app).post(path).set('Cookie', this.cookie);
    return (csrf === null ? req : req.set('X-CSRF-Token', csrf)).send(body);
  }

  delete(path: string, csrf: string | null = this.csrf) {
    const req = request(this.app).delete(path).set('Cookie', this.cookie);
    return csrf === null ? req : req.set('X-CSRF-Token', csrf);
  }
}

export interface SessionBody {
  user: { id: string; email: string };
  organizations: { id: string; name: string; role: string }[];
  active_org_id: string | null;
  csrf_token: string;
}

/** The `name=value` of the session cookie a response set. */
export function sessionCookieOf(res: request.Response): string {
  const header = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = header.find((line) => line.startsWith('__Host-svc_session=') || line.startsWith('svc_session='));
  if (cookie === undefined) throw new Error(`no session cookie set: ${JSON.stringify(res.headers)}`);
  return cookie.split(';')[0]!;
}

export async function signUp(
  app: Express,
  email = `${uniqueName('user')}@example.com`,
  extra: Record<string, string> = {},
): Promise<Browser> {
  const res = await request(app)
    .post('/auth/signup')
    .send({ email, password: PASSWORD, ...extra });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return new Browser(app, sessionCookieOf(res), res.body as SessionBody);
}

export async function signIn(app: Express, email: string, password = PASSWORD): Promise<Browser> {
  const res = await request(app).post('/auth/signin').send({ email, password });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return new Browser(app, sessionCookieOf(res), res.body as SessionBody);
}

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEnvelope, postPublished, type Envelope, type PayloadOf } from '@svc/contracts';
import { createPrismaAdapter } from '@svc/db';
import { analyticsFromConfig, type Network, type NetworkAnalytics } from '@svc/providers';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { sandboxConfig, startSandbox, type RunningSandbox } from '../../../libs/providers/test/support/sandbox.ts';
import { AnalyticsRepository } from '../src/data/analytics.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

export interface Target {
  accountId: string;
  provider: Network;
  platformPostId: string;
}

/** A post.published.v1 envelope as the publisher sends it, at a chosen time. */
export function publishedEvent(
  orgId: string,
  postId: string,
  targets: Target[],
  at: Date,
  text = 'hello analytics',
): Envelope<PayloadOf<typeof postPublished>> {
  const envelope = createEnvelope(
    postPublished,
    {
      id: postId,
      job_id: postId,
      status: 'published',
      account_ids: targets.map((target) => target.accountId),
      platforms: targets.map((target) => target.provider),
      text,
      scheduled_at: null,
      error_message: null,
      results: targets.map((target) => ({
        account_id: target.accountId,
        provider: target.provider,
        status: 'published' as const,
        platform_post_id: target.platformPostId,
        platform_post_url: `https://x.com/sandbox/status/${target.platformPostId}`,
        error_code: null,
        error_message: null,
        published_at: at.toISOString(),
      })),
    },
    { orgId, requestId: null },
  );
  return { ...envelope, occurred_at: at.toISOString() };
}

/** A clock tests move by hand. */
export class ManualClock {
  constructor(private now: Date) {}
  readonly read = () => new Date(this.now);
  set(at: Date): void {
    this.now = new Date(at);
  }
  advance(ms: number): Date {
    this.now = new Date(this.now.getTime() + ms);
    return this.read();
  }
}

export const newPostId = () => randomUUID();

/** A database of this service's own and the network sandbox, with the repository and the networks' analytics over them. */
export interface AnalyticsTestbed {
  database: TestDatabase;
  db: PrismaClient;
  repo: AnalyticsRepository;
  sandbox: RunningSandbox;
  analytics: NetworkAnalytics;
  close(): Promise<void>;
}

export async function openAnalyticsTestbed(prefix: string): Promise<AnalyticsTestbed> {
  const database = await createTestDatabase({ prefix, serviceDir: path.resolve(__dirname, '..') });
  const db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  const sandbox = await startSandbox();
  return {
    database,
    db,
    repo: new AnalyticsRepository(db),
    sandbox,
    analytics: analyticsFromConfig(sandboxConfig(sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 2000 })),
    close: async () => {
      await db.$disconnect();
      await database.drop();
      await sandbox.close();
    },
  };
}

import { Type, type Static } from '@sinclair/typebox';
import {
  COMMON_SECRET_URLS,
  commonConfigSchema,
  freePlanConfigSchema,
  loadConfig,
  privateUrlsProblems,
  productionSecretProblems,
} from '@svc/config';
import { mediaConfigSchema } from '@svc/media';
import { providerConfigSchema } from '@svc/providers';

/** Every setting of the publisher service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  ...providerConfigSchema,
  /**
   * A TikTok publish, Facebook video or Instagram container is polled this many times in the worker
   * (2 + 4 + 8 s asleep with the default delays), then reconciled through its stored handle on
   * DELIVERY_RECONCILE_DELAYS_MS; X and LinkedIn media still processing before the create call end
   * the attempt retryable and the next one resumes from the stored upload. So a long processing never
   * holds a delivery slot.
   */
  PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS: Type.Integer({ minimum: 1, default: 4 }),
  /** Posts (jobs) per calendar month allowed on the free plan (billing announces every other plan's limits); set it to billing's value. */
  PLAN_FREE_POSTS_PER_MONTH: freePlanConfigSchema.PLAN_FREE_POSTS_PER_MONTH,
  ...mediaConfigSchema,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9102 }),
  /**
   * What this process does: `accept` answers the gateway's RPC (creates, history, cancel, media) and
   * consumes plan changes and due jobs; `deliver` runs deliveries (publisher.work, woken deliveries,
   * the sweeper). Both, the default, in one process. Apart, accepts keep their CPU while deliveries
   * run at a lower priority or on pods of their own, each role scaled by its own queue
   * (docs/performance.md, "Accepting and delivering in processes of their own"). Both roles consume
   * account changes (each event reaches one process of the service).
   */
  PUBLISHER_ROLES: Type.String({ pattern: '^(accept|deliver)(,(accept|deliver))?$', default: 'accept,deliver' }),
  /** Dev and tests only: lets media URLs and downloads reach loopback/private addresses. */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
  /**
   * Deadline of importing a post's `media_urls` at accept time, all of its URLs together (waiting for
   * an ingest slot included). The import runs inside the gateway's RPC call, so keep it below the
   * gateway's RPC_TIMEOUT_MS; larger files are uploaded to the library first (POST /v1/media) and
   * posted by `media_ids`.
   */
  MEDIA_ACCEPT_IMPORT_DEADLINE_MS: Type.Integer({ minimum: 100, default: 4000 }),
  /**
   * A post's `media_urls` imported at once at accept time; each holds one of the process's ingest
   * slots (MEDIA_INGEST_CONCURRENCY, MEDIA_INGEST_ORG_CONCURRENCY), so fewer when they are taken. A
   * post finding none free waits in line for one until its deadline, then answers 429.
   */
  MEDIA_ACCEPT_IMPORT_CONCURRENCY: Type.Integer({ minimum: 1, default: 2 }),
  /**
   * How long a quota reservation (taken before a file is stored, turned into its record) counts
   * when its ingest never records nor releases it (a gateway that died): above the longest ingest.
   */
  MEDIA_QUOTA_RESERVATION_TTL_MS: Type.Integer({ minimum: 1000, default: 30 * 60_000 }),
  /**
   * A stored object without a record older than this is an orphan (its ingest died between storing
   * and recording, or its record call went unanswered) and the sweep deletes it. Above the longest
   * time between storing a file and recording it.
   */
  MEDIA_ORPHAN_GRACE_MS: Type.Integer({ minimum: 1000, default: 60 * 60_000 }),
  /** How often one publisher process lists media storage for orphans (0: never, e.g. a second deployment on the same store). */
  MEDIA_ORPHAN_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 0, default: 15 * 60_000 }),
  /**
   * How far ahead the occurrences of recurring posts are created (each an ordinary scheduled job,
   * listed in the history and counted against the monthly posts when created).
   */
  RECURRENCE_HORIZON_HOURS: Type.Integer({ minimum: 1, maximum: 24 * 366, default: 168 }),
  /** How often a publisher that accepts creates the recurrences' occurrences now inside the horizon (0: never). */
  RECURRENCE_EXTEND_INTERVAL_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  /** How far ahead, in seconds, `scheduled_at` must be; only tests of the scheduler lower it. */
  SCHEDULE_MIN_LEAD_SECONDS: Type.Integer({ minimum: 0, default: 60 }),
  /**
   * A job still `scheduled` this long after its time never got its dispatch (a schedule command
   * parked before the scheduler stored it): the publisher's sweeper dispatches it. Well above the
   * scheduler's own re-send (60 s), so normally the scheduler's dispatch wins.
   */
  SCHEDULE_OVERDUE_DISPATCH_MS: Type.Integer({ minimum: 1000, default: 10 * 60_000 }),
  /** Attempts per target for retryable network failures (rate limits, 5xx, timeouts) before failing it. */
  DELIVERY_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 6 }),
  /**
   * Deferrals to a network's quota window (`quota_exhausted`: X usage cap, LinkedIn's daily limit,
   * TikTok spam risk, Instagram's 24 h publishing limit) a target may take on top of
   * DELIVERY_MAX_ATTEMPTS: waiting for a window to reset is not a failed try.
   */
  DELIVERY_MAX_QUOTA_DEFERRALS: Type.Integer({ minimum: 0, maximum: 100, default: 7 }),
  /** Backoff before attempt n+1 (the last value repeats); a longer network Retry-After wins. */
  DELIVERY_BACKOFF_MS: Type.String({ pattern: '^\\d+(,\\d+)*$', default: '5000,30000,120000,600000,1800000' }),
  /**
   * How long an attempt's lease lasts. A live worker renews it every third of this (a heartbeat), so
   * it only runs out when the worker died: then another worker looks the attempt's post up
   * (reconciles) within about this long plus one sweep.
   */
  DELIVERY_LEASE_MS: Type.Integer({ minimum: 300, default: 30_000 }),
  /** How often expired leases and pending deliveries without a command are looked for. */
  DELIVERY_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /**
   * Waits before each lookup of an attempt whose outcome is uncertain (the last value repeats);
   * after one wait per value, a lookup that still cannot answer reports `outcome_unknown`. The
   * first wait lets the network's read side catch up with its write.
   */
  DELIVERY_RECONCILE_DELAYS_MS: Type.String({
    pattern: '^\\d+(,\\d+)*$',
    default: '5000,15000,30000,60000,120000,300000,600000',
  }),
  /**
   * A pending delivery of a running job untouched this long lost its command (parked after the
   * broker's retry tiers, about 36 min in all) and is given a new one.
   */
  DELIVERY_STALE_PENDING_MS: Type.Integer({ minimum: 1000, default: 45 * 60_000 }),
  /**
   * Prisma's database connections per publisher process: the RPC handlers (history, cancel, media),
   * the dispatch of due jobs, the relay and the sweeper (docs/operations.md). Deliveries and accepts
   * have pools of their own.
   */
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 16 }),
  /**
   * The deliveries' plain pg pool (claims, records, lease heartbeats, lookups): one connection per
   * delivery handler at most (`DELIVERY_CONCURRENCY`) while it claims or records, plus the heartbeats
   * of the deliveries in flight. A claim holds its connection while it waits for its organization's lock.
   */
  DELIVERY_DB_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 24 }),
  /**
   * The accept path's own plain pg pool (group commits of job creates, account replica reads and
   * updates; docs/performance.md): one batch is written at a time, the rest are single-row reads.
   * Kept apart from DB_POOL_MAX so deliveries waiting on their organization's lock cannot take the
   * connections accepts need.
   */
  ACCEPT_DB_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 20, default: 4 }),
  /** Jobs written by one accept statement at most. */
  ACCEPT_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
  /**
   * How long a delivery reuses an account's token that accounts answered for an earlier delivery of
   * the same account in this process (domain/credentials-cache.ts); an account.state_changed event
   * drops it at once. 0 asks accounts for every delivery.
   */
  DELIVERY_CREDENTIALS_CACHE_MS: Type.Integer({ minimum: 0, maximum: 300_000, default: 30_000 }),
  /**
   * Deliveries run at once per publisher process from their commands, and the broker's prefetch of
   * publisher.work (which counts messages; a job's targets travel up to 10 a message).
   */
  DELIVERY_CONCURRENCY: Type.Integer({ minimum: 1, default: 20 }),
  /**
   * Send a job's targets as publisher.delivery_run.v2, up to 10 a command; false sends one v1 per
   * target, as a publisher of an earlier release does. Off for the first rollout over such a release,
   * whose replicas park v2 (docs/operations.md, "Upgrading a publisher"). Both are consumed either way.
   */
  DELIVERY_RUN_BATCHES: Type.Boolean({ default: true }),
  /**
   * Deliveries of one organization in flight at once, counted across every publisher process
   * (live leases): one tenant's slow or huge media cannot hold every slot. Past it a delivery waits
   * in the database until a delivery of the same organization frees a slot (or the sweep finds one).
   */
  DELIVERY_ORG_CONCURRENCY: Type.Integer({ minimum: 1, default: 5 }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => [
    ...productionSecretProblems(config, [
      'MEDIA_S3_ACCESS_KEY_ID',
      'MEDIA_S3_SECRET_ACCESS_KEY',
      ...COMMON_SECRET_URLS,
    ]),
    ...privateUrlsProblems(config),
  ]);
}

import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SECRET_URLS, commonConfigSchema, loadConfig, productionSecretProblems } from '@svc/config';
import { providerConfigSchema } from '@svc/providers';

/** Every setting of the analytics-sync service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  ...providerConfigSchema,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9105 }),
  /** How long GET /v1/analytics/posts may spend refreshing missing or stale rows before answering. */
  ANALYTICS_READ_BUDGET_MS: Type.Integer({ minimum: 0, default: 2000 }),
  /**
   * A published post's first background read waits this long, so one lookup reads a burst of an
   * account's posts (X takes 100 ids a call) instead of one call per post. A list read refreshes
   * pending rows at once whatever this says.
   */
  ANALYTICS_FIRST_READ_DELAY_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  /**
   * How long a published post's event waits for others to share its transaction (one transaction,
   * six round trips, for a consumer prefetch's worth at most); 0: events share one only when they
   * arrive together.
   */
  ANALYTICS_RECORD_LINGER_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 50 }),
  /** Pause between background passes when nothing was due. */
  ANALYTICS_SYNC_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  /** Rows claimed per background pass. */
  ANALYTICS_SYNC_BATCH: Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 }),
  /**
   * Background readings per second this replica takes at most, on average; 0 for no budget. The
   * readings due grow with the posts alive (264 a post in its first month) and, where analytics-sync
   * and its database share cores with the publisher, would take the deliveries' CPU: past the budget
   * rows wait their turn (oldest due first; svc_analytics_background_lag_seconds says how far behind,
   * and on Kubernetes KEDA adds replicas on it), and a list read still refreshes the rows it shows.
   * 200 by default: one replica keeps up with about 66,000 posts published a day, at about a
   * sixteenth of a delivery's CPU a reading (docs/performance.md, "The readings' budget by default").
   */
  ANALYTICS_SYNC_MAX_READS_PER_SECOND: Type.Integer({ minimum: 0, default: 200 }),
  /** How long a claimed row is hidden from other replicas while it is read. */
  ANALYTICS_SYNC_LEASE_MS: Type.Integer({ minimum: 1000, default: 10 * 60_000 }),
  /**
   * A row read from its network less than this long ago (by a list read or the background, on any
   * replica) is served as it is, `refresh=true` included: repeated and concurrent reads of a row share
   * one network call.
   */
  ANALYTICS_MIN_REFRESH_AGE_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  /**
   * Rows list reads of one organization may read from the networks per minute, across replicas; past
   * it rows are served as they are (stale or `pending`), never an error. The background's cadence
   * reads are not counted.
   */
  ANALYTICS_ORG_READS_PER_MINUTE: Type.Integer({ minimum: 1, default: 300 }),
  /** Network calls for analytics in flight at once in this process, list reads and background together. */
  ANALYTICS_NETWORK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: 16 }),
  /** Network calls for analytics started per second in this process, on average; 0 for no rate. */
  ANALYTICS_NETWORK_CALLS_PER_SECOND: Type.Integer({ minimum: 0, default: 200 }),
  /** Accounts refreshed at once (each one's posts are batched into as few calls as its network allows). */
  ANALYTICS_ACCOUNT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
  /** Connections of the plain pg pool serving list reads and the post.published consumer (the RPC and consumer prefetch bound what runs at once). */
  ANALYTICS_DB_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  /** How long a 429 without a reset time keeps an account paused. */
  ANALYTICS_RATE_LIMIT_DEFER_MS: Type.Integer({ minimum: 1000, default: 15 * 60_000 }),
  /** When rows are tried again after a transient failure (network or accounts unavailable). */
  ANALYTICS_TRANSIENT_RETRY_MS: Type.Integer({ minimum: 1000, default: 5 * 60_000 }),
  /** Run the background sync in this process (off for replicas that only answer reads). */
  ANALYTICS_BACKGROUND_SYNC: Type.Boolean({ default: true }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => productionSecretProblems(config, COMMON_SECRET_URLS));
}

import { Type, type Static } from '@sinclair/typebox';
import {
  COMMON_SECRET_URLS,
  commonConfigSchema,
  loadConfig,
  privateUrlsProblems,
  productionSecretProblems,
} from '@svc/config';

const msList = (fallback: string) => Type.String({ pattern: '^\\d+(,\\d+)*$', default: fallback });

/** Every setting of the webhook-dispatcher service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9104 }),
  /** Encryption keys for signing secrets: `k1:<base64 of 32 bytes>,k2:...` (libs/crypto vault). */
  VAULT_KEYS: Type.String({ minLength: 1 }),
  /** Key of VAULT_KEYS that encrypts signing secrets; default the last listed. The others still decrypt. */
  VAULT_ACTIVE_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** Dev and tests only: lets webhook receivers be on loopback/private addresses (link-local and metadata stay refused). */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
  /**
   * Delay before each attempt, in ms, from the first: 0, 5 s, 30 s, then 5 min, 30 min, 2 h,
   * 5 h, 10 h, 14 h, 20 h, 24 h. Its length is the number of attempts. Tests shorten it.
   */
  WEBHOOK_RETRY_SCHEDULE_MS: msList('0,5000,30000,300000,1800000,7200000,18000000,36000000,50400000,72000000,86400000'),
  /** Random spread of the retry delays: each delay d after the first is drawn from [d·(1-j), d·(1+j)]. */
  WEBHOOK_RETRY_JITTER: Type.Number({ minimum: 0, maximum: 0.5, default: 0.2 }),
  /** Milliseconds a receiver has to answer an attempt; a slower one fails it. */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 15_000 }),
  /**
   * A receiver that has not accepted the TCP connection (address resolved and checked) within this
   * long fails the attempt: a tarpit that never completes the handshake holds a slot this long, not
   * the whole WEBHOOK_TIMEOUT_MS.
   */
  WEBHOOK_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 3000 }),
  /** Bytes of a response body read (and kept as the attempt's excerpt); the rest is discarded unread. */
  WEBHOOK_RESPONSE_CAP_BYTES: Type.Integer({ minimum: 0, maximum: 65_536, default: 1024 }),
  /** Attempts in flight per process (the prefetch of the deliveries queue). */
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  /**
   * Attempts in flight per endpoint per process, so a slow receiver cannot take every worker: past
   * it, as many again wait their turn in memory and the rest come back after the shortest delay tier.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 500, default: 16 }),
  /**
   * Attempts of one organization in flight (or waiting for their endpoint's slot) across all dispatcher
   * processes, however many endpoints it has (each process holds a leased share of it): past it, its
   * deliveries wait in the broker, so one organization's slow or hanging receivers hold at most this
   * much of the deployment and the rest serves the others.
   */
  WEBHOOK_ORG_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 16 }),
  /** Endpoints one organization may register; creating one more answers 409 (`max_endpoints`). */
  WEBHOOK_MAX_ENDPOINTS_PER_ORG: Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
  /** Milliseconds a receiver has to answer a test send (`POST /v1/webhooks/{id}/test`), shorter than a delivery's. */
  WEBHOOK_TEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  /** Test sends in flight per organization per process; past it 429 with Retry-After. */
  WEBHOOK_TEST_CONCURRENCY_PER_ORG: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
  /**
   * Test sends in flight per process: the prefetch of their own RPC queue (`<prefix>.webhook-dispatcher.tests.rpc`),
   * apart from the API's other calls, which a test waiting on its receiver never delays.
   */
  WEBHOOK_TEST_PREFETCH: Type.Integer({ minimum: 1, maximum: 1000, default: 16 }),
  /** Attempts listed per delivery by the deliveries list (the latest); `attempts_omitted` counts the rest. */
  WEBHOOK_ATTEMPTS_LISTED: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  /**
   * New deliveries per endpoint per process that wait in memory for a WEBHOOK_ENDPOINT_CONCURRENCY slot whatever the
   * endpoint's speed (retries: as many as the concurrency). A receiver that hangs holds at most
   * concurrency + backlog of the events prefetch, plus for at most WEBHOOK_ENDPOINT_PATIENCE_MS the
   * extra waiters it admitted while fast.
   */
  WEBHOOK_ENDPOINT_BACKLOG: Type.Integer({ minimum: 0, maximum: 1000, default: 16 }),
  /**
   * While no slot of an endpoint has been held this long, more new deliveries may wait for one (a
   * burst to one fast endpoint stays in memory); each such waiter goes through the broker after this long.
   */
  WEBHOOK_ENDPOINT_PATIENCE_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1000 }),
  /** An endpoint failing with no success for this long (in ms; 5 days by default) is paused automatically. */
  WEBHOOK_AUTO_PAUSE_AFTER_MS: Type.Integer({ minimum: 0, default: 5 * 24 * 3600_000 }),
  /** How long, in ms, the previous signing secret keeps signing after a rotation. */
  WEBHOOK_SECRET_OVERLAP_MS: Type.Integer({ minimum: 0, default: 24 * 3600_000 }),
  /** Deliveries of this age (in ms) or younger can be replayed. */
  WEBHOOK_REPLAY_WINDOW_MS: Type.Integer({ minimum: 1000, default: 14 * 24 * 3600_000 }),
  /**
   * Settled deliveries (and their attempts) older than this are deleted, so the log is the size of
   * its window whatever the rate of events. At least the replay window: a delivery that can be
   * replayed must still be there.
   */
  WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30 }),
  /**
   * The sweeper re-sends attempt commands for pending deliveries overdue by this much (a command lost
   * with a crash between commit and publish, or an attempt whose worker died).
   */
  WEBHOOK_SWEEP_GRACE_MS: Type.Integer({ minimum: 1000, default: 120_000 }),
  /** How often, in ms, the sweeper looks for overdue pending deliveries (WEBHOOK_SWEEP_GRACE_MS). */
  WEBHOOK_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  /** Connections of the pool that runs the per-delivery statements (besides the `DB_POOL_MAX` pool of the API, sweeper and relay). */
  WEBHOOK_DB_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  /**
   * Rows one batched statement writes at most: events planned together (one subscribers lookup and
   * one insert) and attempts recorded together.
   */
  WEBHOOK_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 256 }),
  /** Events fanned out at once (the prefetch of the events queue). */
  WEBHOOK_EVENTS_PREFETCH: Type.Integer({ minimum: 1, maximum: 1000, default: 256 }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => [
    ...(config.WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * 3600_000 < config.WEBHOOK_REPLAY_WINDOW_MS
      ? [
          'WEBHOOK_DELIVERY_RETENTION_DAYS must cover WEBHOOK_REPLAY_WINDOW_MS (deliveries that can be replayed must be kept)',
        ]
      : []),
    ...productionSecretProblems(config, ['VAULT_KEYS', ...COMMON_SECRET_URLS]),
    ...privateUrlsProblems(config),
  ]);
}

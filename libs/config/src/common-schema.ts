import { Type } from '@sinclair/typebox';

/** Settings every service reads. Services spread these into their own schema. */
export const commonConfigSchema = {
  /** `production` makes a service refuse unset, short or placeholder secrets and development-only switches at start; `development` and `test` allow them. */
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')], {
    default: 'development',
  }),
  /** Lowest level of the JSON (pino) logs written; `silent` writes none. */
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  /** RabbitMQ URL with its credentials (`amqps://` for TLS, as in production). */
  AMQP_URL: Type.String({ pattern: '^amqps?://', default: 'amqp://guest:guest@127.0.0.1:5672' }),
  /** Prefix of every exchange and queue name; empty means `svc`. Tests give each run its own to isolate it. */
  AMQP_NAMESPACE: Type.String({ default: '', pattern: '^[a-z0-9_.-]*$' }),
  /** PostgreSQL server URL; each service appends its own database name. */
  DATABASE_URL: Type.String({ pattern: '^postgres(ql)?://', default: 'postgresql://postgres@127.0.0.1:5432' }),
  /** Overrides the service's own database name (social_<service>); tests use throwaway names. */
  DATABASE_NAME: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,63}$' })),
  /**
   * Whether the service creates its database when missing and applies its migrations at start.
   * `false` where a migrations job runs them first as the migrator role (Kubernetes, compose: the
   * service's own role may neither create databases nor change other roles, docs/security.md); the
   * service then only checks that every migration it ships is applied, and exits if one is not.
   */
  DATABASE_MIGRATE_ON_START: Type.Boolean({ default: true }),
  /**
   * Set when each service connects to RabbitMQ as its own user named `<prefix><service>` (production:
   * docs/security.md); RPC servers then refuse requests from services a message does not allow.
   */
  BROKER_USER_PREFIX: Type.Optional(Type.String({ pattern: '^[a-z0-9_.-]*$' })),
  /** Milliseconds a process has after SIGTERM to finish its in-flight work; past them it exits anyway (code 1). */
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 25000 }),
  /** Milliseconds a caller waits for an RPC reply before the call fails as unavailable (the gateway answers 503); the publisher also bounds its RPC handlers' transactions by it. */
  RPC_TIMEOUT_MS: Type.Integer({ minimum: 50, default: 5000 }),
  /**
   * Connections in the service's database pool. Size it to the work that runs at once (consumer
   * prefetch + RPC handlers + relay and sweepers); the publisher overrides the default. Every
   * replica holds up to this many: replicas x DB_POOL_MAX stays under PostgreSQL's max_connections
   * (docs/operations.md, connection budget).
   */
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /**
   * How long a consumed message's id stays in `processed_messages` (the inbox). It must outlast any
   * redelivery of that message: the broker's, the outbox relay's re-send after a lost confirm, the
   * scheduler's re-dispatches (hours at most). 7 days by default.
   */
  INBOX_RETENTION_HOURS: Type.Integer({ minimum: 1, default: 168 }),
  /** Time between retention passes: the inbox's, and those of a service's own history tables. */
  PRUNE_INTERVAL_MS: Type.Integer({ minimum: 1000, default: 3_600_000 }),
  /**
   * DNS servers that resolve user-supplied hosts (media URLs, webhook receivers), comma-separated
   * `ip` or `ip:port` (`[ipv6]:port`); empty: the system's (/etc/resolv.conf). Those hosts resolve
   * through c-ares, off libuv's thread pool, and /etc/hosts is not read for them (docs/security.md).
   */
  DNS_SERVERS: Type.String({ default: '', pattern: '^[0-9A-Fa-f.:\\[\\],]*$' }),
  /** Longest resolution of a user-supplied host; past it the URL is refused as not resolving. */
  DNS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 30_000, default: 2000 }),
  /**
   * OTLP/HTTP endpoint that receives traces (JSON, at `<endpoint>/v1/traces`), e.g. a collector's
   * `http://otel-collector:4318`. Empty: tracing is off and the SDK is not even loaded
   * (docs/operations.md, "Tracing").
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.String({ default: '', pattern: '^(https?://.+)?$' }),
  /** The `service.name` of this process's spans; empty: the service's own name (`publisher`, `gateway`, ...). */
  OTEL_SERVICE_NAME: Type.String({ default: '', pattern: '^[A-Za-z0-9_.-]*$' }),
  /** Share of the traces this service starts that are kept (0 to 1); a trace begun upstream follows its caller's choice. */
  OTEL_TRACES_SAMPLE_RATIO: Type.Number({ minimum: 0, maximum: 1, default: 1 }),
};

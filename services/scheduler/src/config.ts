import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig } from '@svc/config';

/** Every setting of the scheduler service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9103 }),
  /** How often the loop looks for due jobs; jobs fire within about this much (plus relay latency) of their time. */
  SCHEDULER_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 200 }),
  /** Due jobs claimed per pass (one transaction); a backlog drains pass after pass without waiting. */
  SCHEDULER_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 10_000, default: 200 }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env);
}

import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig } from '@svc/config';

/** Every setting of the webhook-dispatcher service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9104 }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env);
}

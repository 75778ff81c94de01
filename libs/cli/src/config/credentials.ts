import { UsageError } from '../errors.ts';
import type { StoredConfig } from './config-file.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** What a command authenticates with: the environment overrides the stored config, field by field. */
export interface Credentials {
  baseUrl: string;
  apiKey: string | undefined;
  /** A dashboard JWT still valid for a while, if any. */
  token: string | undefined;
  /** Set when `svc login --dev` stored the credentials: a fresh development token can be asked for. */
  devOrgId: string | undefined;
}

/** A stored token this close to its expiry is not used: a command may take a while. */
const TOKEN_MARGIN_MS = 30_000;

export function resolveCredentials(env: Record<string, string | undefined>, stored: StoredConfig, now: number) {
  const storedToken =
    stored.token !== undefined &&
    (stored.token_expires_at === undefined || Date.parse(stored.token_expires_at) - TOKEN_MARGIN_MS > now)
      ? stored.token
      : undefined;
  const credentials: Credentials = {
    baseUrl: checkBaseUrl(env.SVC_BASE_URL || stored.base_url || DEFAULT_BASE_URL),
    apiKey: env.SVC_API_KEY || stored.api_key,
    token: env.SVC_TOKEN || storedToken,
    devOrgId: stored.dev_org_id,
  };
  return credentials;
}

/** An http(s) URL without a trailing slash, or a usage error naming the bad value. */
export function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`base URL ${JSON.stringify(value)} is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`base URL ${JSON.stringify(value)} must start with http:// or https://`);
  return url.href.replace(/\/+$/, '');
}

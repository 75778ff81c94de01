/**
 * Secrets that must never run in production: the development defaults of docker-compose.yml and
 * scripts/start, sandbox OAuth apps, the placeholders of k8s/base/secret.example.yaml (`CHANGE_ME`), and
 * keys with no entropy. A compose file once ran `NODE_ENV=production` with publicly known defaults
 * and nothing refused them.
 */
const DEVELOPMENT_MARKERS =
  /dev-only|change[-_. ]?me|not[-_]for[-_]production|placeholder|sandbox-|example|insecure|replace[-_. ]?me|your[-_]secret/i;
/** The fixed development vault key of scripts/start (base64 of "dev-only-vault-key-32-bytes-long"). */
const DEVELOPMENT_VAULT_KEYS = new Set(['ZGV2LW9ubHktdmF1bHQta2V5LTMyLWJ5dGVzLWxvbmc=']);
/** Passwords every installation of a broker or database starts with (RabbitMQ's guest user). */
const DEFAULT_PASSWORDS = new Set(['guest', 'password', 'postgres', 'secret']);

const SUFFIX = 'set a real secret in production';

function weakSecret(value: string): string | undefined {
  if (DEVELOPMENT_MARKERS.test(value)) return 'is a development or placeholder value';
  if (new Set(value).size < 8) return 'has too little variety to be a random secret';
  return undefined;
}

function weakVaultKeys(value: string): string | undefined {
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [id, key = ''] = entry.split(/:(.*)/s);
    if (DEVELOPMENT_VAULT_KEYS.has(key)) return `holds the development key "${id}"`;
    if (DEVELOPMENT_MARKERS.test(key)) return `key "${id}" is a placeholder`;
    const bytes = Buffer.from(key, 'base64');
    if (bytes.length > 0 && bytes.every((byte) => byte === bytes[0]))
      return `key "${id}" is ${bytes[0] === 0 ? 'all zeros' : 'one repeated byte'}`;
  }
  return undefined;
}

/**
 * A URL's embedded password (amqp://user:password@host): only placeholders and well-known defaults
 * are refused, since an operator may choose a memorable password for a network-only service.
 */
function weakUrlPassword(value: string): string | undefined {
  let password: string;
  try {
    password = decodeURIComponent(new URL(value).password);
  } catch {
    return undefined;
  }
  if (password === '') return undefined;
  if (DEVELOPMENT_MARKERS.test(password)) return 'carries a placeholder password';
  if (DEFAULT_PASSWORDS.has(password.toLowerCase())) return `carries the well-known password "${password}"`;
  return undefined;
}

function problemOf(name: string, value: string): string | undefined {
  if (name === 'VAULT_KEYS') return weakVaultKeys(value);
  if (name.endsWith('_URL')) return weakUrlPassword(value);
  return weakSecret(value);
}

/** The connection URLs every service reads (libs/config common schema); their passwords are checked too. */
export const COMMON_SECRET_URLS = ['DATABASE_URL', 'AMQP_URL'] as const;

export interface ProductionSecretOptions {
  /** Settings that are optional in development (the feature answers 503 without them) but required in production. */
  required?: readonly string[];
}

/**
 * In production, one problem per named setting that is missing (when listed in `required`), holds a
 * known development value, a placeholder (`CHANGE_ME`, `change-me`, `example`... in any case) or an
 * all-zero / single-byte vault key (VAULT_KEYS entries are checked key by key). Settings named `*_URL`
 * are connection URLs: their password is checked for placeholders and well-known defaults. Elsewhere none.
 */
export function productionSecretProblems(
  config: Record<string, unknown>,
  names: readonly string[],
  options: ProductionSecretOptions = {},
): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of options.required ?? []) {
    if (typeof config[name] !== 'string') problems.push(`${name} is required in production`);
  }
  for (const name of names) {
    const value = config[name];
    if (typeof value !== 'string') continue;
    const problem = problemOf(name, value);
    if (problem !== undefined) problems.push(`${name} ${problem}; ${SUFFIX}`);
  }
  return problems;
}

/**
 * `ALLOW_PRIVATE_URLS=true` lets tenant-supplied URLs reach loopback and private addresses: for
 * development and tests against local servers only, never in production.
 */
export function privateUrlsProblems(config: { NODE_ENV: string; ALLOW_PRIVATE_URLS: boolean }): string[] {
  return config.NODE_ENV === 'production' && config.ALLOW_PRIVATE_URLS
    ? ['ALLOW_PRIVATE_URLS must be false in production (it lets tenant URLs reach internal addresses)']
    : [];
}

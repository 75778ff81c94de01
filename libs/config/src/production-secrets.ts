/**
 * Secrets that must never run in production: the development defaults of docker-compose.yml and
 * scripts/start, sandbox OAuth apps, placeholders, and keys with no entropy. A compose file once ran
 * `NODE_ENV=production` with publicly known defaults and nothing refused them.
 */
const DEVELOPMENT_MARKERS = /dev-only|change-me|not-for-production|placeholder|sandbox-|example|insecure/i;
/** The fixed development vault key of scripts/start (base64 of "dev-only-vault-key-32-bytes-long"). */
const DEVELOPMENT_VAULT_KEYS = new Set(['ZGV2LW9ubHktdmF1bHQta2V5LTMyLWJ5dGVzLWxvbmc=']);

function weakSecret(value: string): string | undefined {
  if (DEVELOPMENT_MARKERS.test(value)) return 'is a development or placeholder value';
  if (new Set(value).size < 8) return 'has too little variety to be a random secret';
  return undefined;
}

function weakVaultKeys(value: string): string | undefined {
  for (const entry of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [id, key = ''] = entry.split(/:(.*)/s);
    if (DEVELOPMENT_VAULT_KEYS.has(key)) return `holds the development key "${id}"`;
    const bytes = Buffer.from(key, 'base64');
    if (bytes.length > 0 && bytes.every((byte) => byte === bytes[0])) return `key "${id}" is ${bytes[0] === 0 ? 'all zeros' : 'one repeated byte'}`;
  }
  return undefined;
}

/**
 * In production, one problem per named setting that holds a known development value, a placeholder
 * or an all-zero / single-byte vault key (VAULT_KEYS entries are checked key by key). Elsewhere none.
 */
export function productionSecretProblems(config: Record<string, unknown>, names: readonly string[]): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of names) {
    const value = config[name];
    if (typeof value !== 'string') continue;
    const problem = name === 'VAULT_KEYS' ? weakVaultKeys(value) : weakSecret(value);
    if (problem !== undefined) problems.push(`${name} ${problem}; set a real secret in production`);
  }
  return problems;
}

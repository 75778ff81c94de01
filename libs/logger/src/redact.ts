/**
 * Key-based redaction at any depth, applied to every log line's object before it is written.
 * pino's path redaction matched only the first four levels and missed what a raw axios error carries
 * (its request's headers and body, the URL's query with Graph API tokens), so secrets are found by
 * the name of the field that holds them, wherever it sits, and errors are reduced to what helps.
 */

export const REDACTED = '[redacted]';
const MAX_DEPTH = 12;
const MAX_ARRAY = 50;

/** Field names that hold secrets: tokens, secrets, passwords, keys, cookies, signatures, codes. */
const SECRET_SUFFIX = /(^|[_-])(authorization|cookie|password|passwd|secret|token|pepper|signature|credentials?)$/i;
const SECRET_NAME = /^(key|x-api-key|api[_-]?key|private[_-]?key|code[_-]?verifier|vault[_-]?keys?|set-cookie)$/i;
const SECRET_CAMEL = /(Token|Secret|Password|ApiKey|PrivateKey|Signature)$/;
/** Query parameters networks use for secrets (Graph API takes access_token in the URL; OAuth codes). */
const SECRET_QUERY =
  /([?&](?:access_token|input_token|fb_exchange_token|client_secret|refresh_token|code|code_verifier|token)=)[^&#\s"]*/gi;

export function isSecretKey(key: string): boolean {
  return SECRET_SUFFIX.test(key) || SECRET_NAME.test(key) || SECRET_CAMEL.test(key);
}

function scrubString(value: string): string {
  return value.includes('=') ? value.replace(SECRET_QUERY, `$1${REDACTED}`) : value;
}

interface AxiosLikeError extends Error {
  isAxiosError: true;
  code?: string;
  config?: { method?: string; url?: string; baseURL?: string };
  response?: { status?: number; data?: unknown };
}

function isAxiosError(value: unknown): value is AxiosLikeError {
  return value instanceof Error && (value as Partial<AxiosLikeError>).isAxiosError === true;
}

/**
 * An axios error keeps its request (headers with the bearer token, the body with refresh tokens) and
 * socket objects: log only what diagnoses the failure, the response body redacted like the rest.
 */
function describeError(error: Error, seen: WeakSet<object>, depth: number): Record<string, unknown> {
  if (isAxiosError(error)) {
    return {
      type: error.name,
      message: scrubString(error.message),
      code: error.code,
      method: error.config?.method?.toUpperCase(),
      url:
        error.config?.url === undefined ? undefined : scrubString(`${error.config.baseURL ?? ''}${error.config.url}`),
      status: error.response?.status,
      response: redactValue(error.response?.data, seen, depth + 1),
    };
  }
  const described: Record<string, unknown> = {
    type: error.name,
    message: scrubString(error.message),
    stack: error.stack,
  };
  for (const [key, value] of Object.entries(error))
    described[key] = isSecretKey(key) ? REDACTED : redactValue(value, seen, depth + 1);
  if (error.cause !== undefined) described.cause = redactValue(error.cause, seen, depth + 1);
  return described;
}

export function redactValue(value: unknown, seen: WeakSet<object> = new WeakSet(), depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) return describeError(value, seen, depth);
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.slice(0, MAX_ARRAY).map((item) => redactValue(item, seen, depth + 1));
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return redactValue((value as { toJSON: () => unknown }).toJSON(), seen, depth + 1);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    out[key] =
      isSecretKey(key) && child !== null && child !== undefined ? REDACTED : redactValue(child, seen, depth + 1);
  return out;
}

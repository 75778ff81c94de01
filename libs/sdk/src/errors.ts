// The SDK's errors, one class per way a call can fail, so callers branch on the class (and on `code`
// for API errors), never on message text. The CLI maps SvcApiError to exit status 1 and
// SvcNetworkError to 3.

/** Base class of every error the SDK throws on purpose. */
export class SvcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One entry of an error body's `details` (schema paths, accounts and rules...). */
export interface SvcErrorDetail {
  path?: string;
  message: string;
  rule?: string;
  [key: string]: unknown;
}

/**
 * The API answered with an error status. `code`, `message`, `details` and `requestId` come from the
 * body `{error: {code, message, details, request_id}}`; an answer without that body (a proxy's page)
 * has code `http_<status>` and the `X-Request-Id` header, if any, as its request id.
 */
export class SvcApiError extends SvcError {
  readonly status: number;
  readonly code: string;
  readonly details: SvcErrorDetail[];
  readonly requestId: string | undefined;
  /** The response headers (e.g. `Retry-After` on a 429 that outlasted the retry budget). */
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    const error = errorOf(body);
    super(error?.message ?? `The API answered ${status} without an error body.`);
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.details = error?.details ?? [];
    this.requestId = error?.request_id ?? headers.get('x-request-id') ?? undefined;
    this.headers = headers;
  }
}

function errorOf(
  body: unknown,
): { code: string; message: string; details?: SvcErrorDetail[]; request_id?: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return error as { code: string; message: string };
}

/**
 * No answer: the connection failed, was cut, or the attempt outlasted `timeoutMs` (`timedOut`). The
 * request may or may not have reached the API; see the retry rules in docs/sdk.md.
 */
export class SvcNetworkError extends SvcError {
  readonly timedOut: boolean;

  constructor(message: string, options: { cause?: unknown; timedOut?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut ?? false;
  }
}

/** `waitForJob` gave up before every target reached a final status; `last` is the post as last read. */
export class SvcWaitTimeoutError extends SvcError {
  constructor(
    message: string,
    readonly last: unknown,
  ) {
    super(message);
  }
}

/** Why a webhook delivery was refused by `verifyWebhook`. */
export type WebhookVerificationReason =
  'missing_signature' | 'malformed_signature' | 'stale_timestamp' | 'signature_mismatch' | 'invalid_body';

/** A webhook delivery failed verification: do not act on it (answer 400 or 401). */
export class SvcWebhookVerificationError extends SvcError {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

import { AppError, type ErrorCode } from '@svc/errors';
import { networkLabels, type Network } from '../types.ts';

/** The one taxonomy every network failure is classified into (docs/networks.md §6). */
export const errorKinds = [
  'auth_expired',
  'auth_revoked',
  'permission_missing',
  'rate_limited',
  'quota_exhausted',
  'duplicate',
  'media_invalid',
  'validation',
  'transient',
] as const;
export type ProviderErrorKind = (typeof errorKinds)[number];

/** What a classifier reads out of a network response; pure data, no HTTP objects. */
export interface Classification {
  kind: ProviderErrorKind;
  retryAfterMs?: number | undefined;
  networkCode?: string | undefined;
  networkMessage: string;
}

const APP_CODE: Record<ProviderErrorKind, ErrorCode> = {
  auth_expired: 'unauthorized',
  auth_revoked: 'unauthorized',
  permission_missing: 'forbidden',
  rate_limited: 'rate_limited',
  quota_exhausted: 'rate_limited',
  duplicate: 'conflict',
  media_invalid: 'validation_error',
  validation: 'validation_error',
  transient: 'service_unavailable',
};

const RETRYABLE = new Set<ProviderErrorKind>(['rate_limited', 'quota_exhausted', 'transient']);

export interface ProviderErrorInit extends Classification {
  network: Network;
  status?: number | undefined;
  cause?: unknown;
  /** The call that creates the post was sent and its outcome is unknown (see `uncertain`). */
  uncertain?: boolean | undefined;
}

/**
 * A network failure, classified. Callers branch on `kind` (retry / refresh / fail) and never on the
 * network; `networkCode`/`networkMessage` keep the network's own words. `status` is the network's
 * HTTP status (undefined for timeouts, an open breaker or local checks). `toAppError()` gives the
 * public error (docs/api-conventions.md, "Errors") when a failure must reach an API user.
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly network: Network;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly networkCode: string | undefined;
  readonly networkMessage: string;
  /** Whether trying again later can succeed (rate limits, quota windows, transient failures). */
  readonly retryable: boolean;
  /**
   * The post may exist: the create call timed out, lost its connection or got a 5xx after it was
   * sent, or the network was still processing when polling stopped. Never post again blindly: look
   * it up first.
   */
  readonly uncertain: boolean;

  constructor(init: ProviderErrorInit) {
    super(
      `${init.network} ${init.kind}: ${init.networkMessage}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'ProviderError';
    this.kind = init.kind;
    this.network = init.network;
    this.retryAfterMs = init.retryAfterMs;
    this.status = init.status;
    this.networkCode = init.networkCode;
    this.networkMessage = init.networkMessage;
    this.retryable = RETRYABLE.has(init.kind);
    this.uncertain = init.uncertain === true;
  }

  /** The same failure, marked as leaving the post's existence unknown. */
  asUncertain(): ProviderError {
    return new ProviderError({
      network: this.network,
      kind: this.kind,
      status: this.status,
      retryAfterMs: this.retryAfterMs,
      networkCode: this.networkCode,
      networkMessage: this.networkMessage,
      uncertain: true,
    });
  }

  toAppError(): AppError {
    const headers =
      this.retryAfterMs === undefined ? undefined : { 'Retry-After': String(Math.ceil(this.retryAfterMs / 1000)) };
    return new AppError(
      APP_CODE[this.kind],
      `${networkLabels[this.network]} refused the request: ${this.networkMessage}`,
      {
        retryable: this.retryable,
        cause: this,
        details: [
          {
            message: this.networkMessage,
            kind: this.kind,
            network: this.network,
            ...(this.networkCode ? { network_code: this.networkCode } : {}),
          },
        ],
        ...(headers ? { headers } : {}),
      },
    );
  }
}

export const isProviderError = (value: unknown): value is ProviderError => value instanceof ProviderError;

import { type Response } from 'express';
import { stripeId } from './stripe-objects.ts';

export type StripeErrorType = 'invalid_request_error' | 'api_error' | 'idempotency_error' | 'card_error';

/**
 * An error as Stripe's API answers it (API reference, "Errors"): `{error: {type, code?, message,
 * param?}}` with the HTTP status. stripe-node turns each into its typed error (StripeInvalidRequestError,
 * StripeAuthenticationError for 401, StripeIdempotencyError...) with `statusCode` and `code`.
 */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: StripeErrorType,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }

  get body(): { error: Record<string, string> } {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.code === undefined
          ? {}
          : { code: this.code, doc_url: `https://stripe.com/docs/error-codes/${this.code.replace(/_/g, '-')}` }),
        ...(this.param === undefined ? {} : { param: this.param }),
      },
    };
  }
}

/** `No such customer: 'cus_x'`, Stripe's answer for an id it does not know. */
export function noSuch(kind: string, id: string, param: string): StripeApiError {
  return new StripeApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
}

export function invalidParam(param: string, message: string, code = 'parameter_invalid_string'): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', message, code, param);
}

export function missingParam(param: string): StripeApiError {
  return new StripeApiError(
    400,
    'invalid_request_error',
    `Missing required param: ${param}.`,
    'parameter_missing',
    param,
  );
}

export function sendStripe(res: Response, status: number, body: unknown): void {
  if (!res.hasHeader('request-id')) res.setHeader('Request-Id', stripeId('req'));
  res.status(status).json(body);
}

export function sendStripeError(res: Response, error: StripeApiError): void {
  sendStripe(res, error.status, error.body);
}

import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { sendStripe, sendStripeError, StripeApiError } from './stripe-errors.ts';
import { stripeId } from './stripe-objects.ts';
import { type StripeState } from './stripe-state.ts';

/**
 * The secret key of a request: `Authorization: Bearer <key>` (what stripe-node sends) or HTTP Basic
 * with the key as user name (curl's `-u sk_test_...:`).
 */
function apiKeyOf(req: Request): string | undefined {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer !== null) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic !== null) return Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0];
  return undefined;
}

/** Test-mode secret and restricted keys only: a live key has no business at a sandbox. */
const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9_]+$/;

/**
 * Every `/v1` call: a `Request-Id`, a test-mode key (401 in Stripe's words otherwise), and the API
 * version the client pins (`Stripe-Version`), which the account's events are then rendered in.
 */
export function stripeAuth(state: StripeState): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Request-Id', stripeId('req'));
    const key = apiKeyOf(req);
    if (key === undefined || key === '') {
      return sendStripeError(
        res,
        new StripeApiError(
          401,
          'invalid_request_error',
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        ),
      );
    }
    if (!TEST_KEY.test(key)) {
      const shown = key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(4)}${key.slice(-4)}` : `${key.slice(0, 3)}****`;
      return sendStripeError(
        res,
        new StripeApiError(
          401,
          'invalid_request_error',
          `Invalid API Key provided: ${shown} (the sandbox takes test-mode keys, sk_test_...).`,
        ),
      );
    }
    res.locals.apiKey = key;
    const version = req.headers['stripe-version'];
    if (typeof version === 'string' && version !== '') {
      state.apiVersion = version;
      res.setHeader('Stripe-Version', version);
    }
    next();
  };
}

export interface StripeAnswer {
  status: number;
  body: unknown;
}

export type StripeHandler = (req: Request, res: Response) => StripeAnswer;

/**
 * Runs one API operation, answering its errors in Stripe's shape. A POST with an `Idempotency-Key`
 * is answered once: a retry with the same key and parameters gets the first answer again (with
 * `Idempotent-Replayed: true`) and changes nothing; the same key with other parameters is an
 * `idempotency_error`. As at Stripe, only answers of requests that ran (2xx) are kept.
 */
export function stripeEndpoint(state: StripeState, handler: StripeHandler): RequestHandler {
  return (req: Request, res: Response) => {
    const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined;
    const slot = typeof key === 'string' && key !== '' ? `${String(res.locals.apiKey)}:${key}` : undefined;
    const fingerprint = `${req.method} ${req.path} ${JSON.stringify(req.body ?? {})}`;
    if (slot !== undefined) {
      const previous = state.idempotency.get(slot);
      if (previous !== undefined && previous.fingerprint !== fingerprint) {
        return sendStripeError(
          res,
          new StripeApiError(
            400,
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${String(key)}' if you meant to execute a different request.`,
          ),
        );
      }
      if (previous !== undefined) {
        res.setHeader('Idempotent-Replayed', 'true');
        return sendStripe(res, previous.status, previous.body);
      }
    }
    let answer: StripeAnswer;
    try {
      answer = handler(req, res);
    } catch (error) {
      if (error instanceof StripeApiError) return sendStripeError(res, error);
      throw error;
    }
    if (slot !== undefined && answer.status < 300) state.idempotency.set(slot, { fingerprint, ...answer });
    sendStripe(res, answer.status, answer.body);
  };
}

/** The cause recorded on events an API call produces (`request.id`, `request.idempotency_key`). */
export function causeOf(req: Request, res: Response): { requestId: string | null; idempotencyKey: string | null } {
  const key = req.headers['idempotency-key'];
  return {
    requestId: String(res.getHeader('request-id') ?? '') || null,
    idempotencyKey: typeof key === 'string' && key !== '' ? key : null,
  };
}

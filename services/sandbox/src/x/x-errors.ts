import { type Request, type Response } from 'express';
import { type Fault } from '../state/types.ts';

export const bearer = (req: Request): string | undefined =>
  /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];

const PROBLEMS = 'https://api.x.com/2/problems';

/** X API v2 problem format (docs/networks.md §3.3): `{title, detail, type, status}`. */
export function problem(
  res: Response,
  status: number,
  title: string,
  detail: string,
  type = 'about:blank',
  extra: Record<string, unknown> = {},
): void {
  res.status(status).json({ title, detail, type, status, ...extra });
}

export const unauthorized = (res: Response) => problem(res, 401, 'Unauthorized', 'Unauthorized');

export function invalidRequest(res: Response, parameter: string, message: string): void {
  res.status(400).json({
    errors: [{ parameters: { [parameter]: [message] }, message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: `${PROBLEMS}/invalid-request`,
  });
}

/** OAuth 2.0 token endpoint errors are plain RFC 6749 bodies, not problems. */
export function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

export function rateLimitHeaders(res: Response, limit: number, remaining: number, resetEpochSeconds: number): void {
  res.setHeader('x-rate-limit-limit', String(limit));
  res.setHeader('x-rate-limit-remaining', String(Math.max(0, remaining)));
  res.setHeader('x-rate-limit-reset', String(resetEpochSeconds));
}

/**
 * Faults in X's shapes. X answers an expired and a revoked token alike (401) on API calls; a
 * revoked grant shows on the next refresh (`invalid_request`).
 */
export function xFaultRenderer() {
  return (fault: Fault, req: Request, res: Response): void => {
    const tokenEndpoint = req.path.startsWith('/2/oauth2/');
    switch (fault.fault) {
      case 'rate_limit': {
        rateLimitHeaders(res, 100, 0, Math.ceil(Date.now() / 1000 + fault.retryAfterSeconds));
        return problem(res, 429, 'Too Many Requests', 'Too Many Requests');
      }
      case 'server_error':
        return problem(res, 503, 'Service Unavailable', 'Service Unavailable');
      // The fault gate has already revoked the grant of a `token_revoked` (http/fault-gate.ts).
      case 'token_expired':
      case 'token_revoked':
        return tokenEndpoint
          ? oauthError(res, 400, 'invalid_request', 'Value passed for the token was invalid.')
          : unauthorized(res);
      case 'duplicate':
        return problem(res, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
      case 'quota_exhausted': {
        // As recorded in xdevplatform/xdk#25: 429, the 15-minute window nearly untouched, the plan's cap spent.
        rateLimitHeaders(res, 100, 99, Math.ceil(Date.now() / 1000 + 900));
        return void res.status(429).json({
          account_id: '1',
          product_name: 'standard-basic',
          title: 'UsageCapExceeded',
          period: 'Daily',
          scope: 'Product',
          detail: 'Usage cap exceeded: Daily product cap',
          type: 'https://api.twitter.com/2/problems/usage-capped',
        });
      }
      case 'timeout':
        return;
    }
  };
}

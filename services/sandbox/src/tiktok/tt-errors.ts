import { type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { type Fault } from '../state/types.ts';

export const logId = () =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(9).toString('hex').toUpperCase()}`;

const INT64 = /"__int64__(\d+)"/g;

/** Marks a number that must reach the wire as a JSON int64 literal (beyond 2^53, like TikTok's ids). */
export const int64 = (digits: string) => `__int64__${digits}`;

function send(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(JSON.stringify(body).replace(INT64, '$1'));
}

/** Open API v2 envelope (docs/networks.md §5.2/§5.3): `{"data":{...},"error":{"code","message","log_id"}}`. */
export function ttOk(res: Response, data: unknown): void {
  send(res, 200, { data, error: { code: 'ok', message: '', log_id: logId() } });
}

export function ttError(res: Response, status: number, code: string, message: string): void {
  send(res, status, { data: {}, error: { code, message, log_id: logId() } });
}

export function oauthError(res: Response, status: number, error: string, description: string): void {
  send(res, status, { error, error_description: description, log_id: logId() });
}

export const tokenInvalid = (res: Response) =>
  ttError(res, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');

export const bearerOf = (req: Request) => /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];

/**
 * Faults in TikTok's shapes. TikTok answers expired and revoked tokens alike on API calls
 * (`access_token_invalid`); a revoked grant shows on refresh (`invalid_grant`). TikTok has no
 * duplicate code: the closest is `spam_risk` (docs/networks.md §6).
 */
export function tiktokFaultRenderer() {
  return (fault: Fault, req: Request, res: Response): void => {
    const oauth = req.path.startsWith('/v2/oauth/');
    switch (fault.fault) {
      case 'rate_limit':
        return ttError(res, 429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
      case 'server_error':
        return ttError(res, 500, 'internal_error', 'Something went wrong. Please try again later.');
      // The fault gate has already revoked the grant of a `token_revoked` (http/fault-gate.ts).
      case 'token_expired':
      case 'token_revoked':
        return oauth
          ? oauthError(res, 400, 'invalid_grant', 'Refresh token is invalid or expired.')
          : tokenInvalid(res);
      case 'duplicate':
        return ttError(
          res,
          403,
          'spam_risk',
          'The post was flagged as a spam risk: the same content was already posted.',
        );
      case 'quota_exhausted':
        return ttError(res, 403, 'spam_risk_too_many_posts', 'The daily post cap for this user was reached.');
      case 'timeout':
        return;
    }
  };
}

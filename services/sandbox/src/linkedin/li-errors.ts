import { type Request, type Response } from 'express';
import { type Fault } from '../state/types.ts';

/** LinkedIn REST error body (docs/networks.md §4.3): `{status, serviceErrorCode, code, message}`. */
export function liError(
  res: Response,
  status: number,
  message: string,
  code?: string,
  serviceErrorCode?: number,
): void {
  res.status(status).json({
    status,
    ...(serviceErrorCode === undefined ? {} : { serviceErrorCode }),
    ...(code === undefined ? {} : { code }),
    message,
  });
}

export function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

export const tokenErrors = {
  missing: (res: Response) => liError(res, 401, 'Empty oauth2_access_token', undefined, 401),
  invalid: (res: Response) => liError(res, 401, 'Invalid access token', 'INVALID_ACCESS_TOKEN', 65600),
  expired: (res: Response) =>
    liError(res, 401, 'The token used in the request has expired', 'EXPIRED_ACCESS_TOKEN', 65600),
  revoked: (res: Response) =>
    liError(res, 401, 'The token used in the request has been revoked by the user', 'REVOKED_ACCESS_TOKEN', 65601),
};

export function duplicatePost(res: Response, existing: string): void {
  res.status(422).json({
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${existing}`,
    errorDetails: { inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }] },
    status: 422,
  });
}

/** LinkedIn documents no rate-limit headers: a 429 carries none (docs/networks.md §4.3). */
export function renderLinkedInFault(fault: Fault, req: Request, res: Response): void {
  const oauth = req.path.startsWith('/oauth/');
  switch (fault.fault) {
    // LinkedIn's throttles are daily (reset at midnight UTC) and look alike on the wire.
    case 'rate_limit':
    case 'quota_exhausted':
      return liError(
        res,
        429,
        'Resource level throttle limit for calls to this resource is reached.',
        'TOO_MANY_REQUESTS',
        101,
      );
    case 'server_error':
      return liError(res, 500, 'Internal Server Error');
    case 'token_expired':
      return oauth
        ? oauthError(res, 400, 'invalid_grant', 'Token has been expired or revoked.')
        : tokenErrors.expired(res);
    case 'token_revoked':
      return oauth
        ? oauthError(res, 400, 'invalid_grant', 'Token has been expired or revoked.')
        : tokenErrors.revoked(res);
    case 'duplicate':
      return duplicatePost(res, 'urn:li:share:7141138937766391808');
    case 'timeout':
      return;
  }
}

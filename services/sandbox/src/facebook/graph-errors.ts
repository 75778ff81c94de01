import { type Request, type Response } from 'express';
import { randomToken } from '../state/ids.ts';
import { type Fault, type TokenCheck } from '../state/types.ts';

export interface GraphErrorFields {
  message: string;
  type?: string;
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
}

/** Graph API error body (docs/networks.md §2.3): `{"error":{message,type,code,error_subcode,...,fbtrace_id}}`. */
export function graphError(res: Response, status: number, fields: GraphErrorFields): void {
  const fbtrace = randomToken('A', 9);
  res.setHeader('x-fb-trace-id', fbtrace);
  res.status(status).json({ error: { type: 'OAuthException', ...fields, fbtrace_id: fbtrace } });
}

export function unsupportedGet(res: Response, id: string): void {
  graphError(res, 400, {
    message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    type: 'GraphMethodException',
    code: 100,
    error_subcode: 33,
  });
}

export function invalidParameter(res: Response, message: string, subcode?: number, userMsg?: string): void {
  graphError(res, 400, {
    message,
    code: 100,
    ...(subcode === undefined ? {} : { error_subcode: subcode }),
    ...(userMsg === undefined ? {} : { error_user_msg: userMsg }),
  });
}

const expiredAt = () => new Date(Date.now() - 3_600_000).toUTCString();

export function tokenError(res: Response, status: Exclude<TokenCheck['status'], 'ok'> | 'missing'): void {
  switch (status) {
    case 'missing':
      return graphError(res, 400, {
        message: 'An active access token must be used to query information about the current user.',
        code: 2500,
      });
    case 'invalid':
      return graphError(res, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
    case 'expired':
      return graphError(res, 400, {
        message: `Error validating access token: Session has expired on ${expiredAt()}. The current time is ${new Date().toUTCString()}.`,
        code: 190,
        error_subcode: 463,
      });
    case 'revoked':
      return graphError(res, 400, {
        message: 'Error validating access token: The user has not authorized application 1234567890123456.',
        code: 190,
        error_subcode: 458,
      });
  }
}

/** Faults in Graph's own shapes; Facebook and Instagram differ only in the throttling code and BUC type. */
export function renderGraphFault(fault: Fault, req: Request, res: Response): void {
  const instagram = fault.network === 'instagram';
  switch (fault.fault) {
    case 'rate_limit': {
      const objectId = (req.params as Record<string, string | undefined>).id ?? 'me';
      const minutes = Math.max(1, Math.ceil(fault.retryAfterSeconds / 60));
      res.setHeader('x-app-usage', JSON.stringify({ call_count: 100, total_cputime: 34, total_time: 41 }));
      res.setHeader(
        'x-business-use-case-usage',
        JSON.stringify({
          [objectId]: [
            {
              type: instagram ? 'instagram' : 'pages',
              call_count: 100,
              total_cputime: 23,
              total_time: 31,
              estimated_time_to_regain_access: minutes,
            },
          ],
        }),
      );
      return graphError(res, 400, {
        message: instagram
          ? '(#80002) There have been too many calls to this Instagram account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.'
          : '(#80001) There have been too many calls to this Page account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.',
        code: instagram ? 80002 : 80001,
      });
    }
    case 'server_error':
      return graphError(res, 500, {
        message: 'An unexpected error has occurred. Please retry your request later.',
        code: 2,
        is_transient: true,
      });
    case 'token_expired':
      return tokenError(res, 'expired');
    case 'token_revoked':
      return tokenError(res, 'revoked');
    case 'duplicate':
      return graphError(res, 400, {
        message: '(#506) Duplicate status message',
        code: 506,
        error_user_title: 'Duplicate Status',
        error_user_msg:
          'This status update is identical to the last one you posted. Try posting something different, or delete your previous update.',
      });
    case 'quota_exhausted':
      return instagram
        ? graphError(res, 400, {
            message: 'Application request limit reached',
            code: 9,
            error_subcode: 2207042,
            error_user_title: 'Max publishing limit reached',
            error_user_msg: 'You have reached the maximum number of posts that can be published in 24 hours.',
          })
        : graphError(res, 400, {
            message: '(#368) The action attempted has been deemed abusive or is otherwise disallowed',
            code: 368,
          });
    case 'timeout':
      return;
  }
}

import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { dashboardErrors } from '../domain/errors.ts';
import type { TokenMinter } from '../domain/token-minter.ts';
import { requestIdOf } from '@svc/http-server';
import { signedIn } from './session-guard.ts';

export interface ApiProxyOptions {
  gatewayUrl: string;
  minter: TokenMinter;
  bodyLimitBytes: number;
  timeoutMs: number;
  logger: Logger;
  /** requireSession: the session and, on state-changing requests, its CSRF token. */
  session: RequestHandler;
}

/**
 * Request headers a page may send on to the gateway; everything else (cookies first) stays here. No
 * cookie crosses this proxy either way: an OAuth connect binds its flow to the browser on the
 * gateway's own origin, through the hand-off link `start` answers (docs/dashboard.md).
 */
const FORWARDED_REQUEST = ['accept', 'accept-language', 'content-type', 'idempotency-key', 'if-none-match'];
/**
 * Response headers never passed back: hop-by-hop ones, the body's length and encoding (fetch has
 * decoded it), and anything that could carry or ask for a credential.
 */
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'set-cookie',
  'authorization',
  'www-authenticate',
  'x-request-id',
]);

/** Media uploads stream through to the gateway, which enforces its own size limits. */
const isUpload = (req: Request) => req.method === 'POST' && req.path === '/v1/media';

/**
 * The backend-for-frontend: `/api/<path>` goes to the gateway's `/<path>` with a dashboard JWT for
 * the session's user and active organization, minted here, so the browser never holds the token.
 * Bodies are bounded, the exchange is timed out as a whole, and the response is streamed back.
 */
export function apiProxy(options: ApiProxyOptions): Router {
  const router = express.Router();
  const raw = express.raw({ limit: options.bodyLimitBytes, type: (req) => !isUpload(req as Request) });
  router.use(options.session, raw, (req: Request, res: Response, next: NextFunction) => {
    forward(options, req, res).catch(next);
  });
  return router;
}

async function forward(options: ApiProxyOptions, req: Request, res: Response): Promise<void> {
  const { session } = signedIn(res);
  if (session.activeOrgId === null) throw dashboardErrors.noActiveOrg();
  const jwt = await options.minter.tokenFor(session.userId, session.activeOrgId);
  const headers = new Headers({ authorization: `Bearer ${jwt}`, 'x-request-id': requestIdOf(res) });
  for (const name of FORWARDED_REQUEST) {
    const value = req.get(name);
    if (value !== undefined) headers.set(name, value);
  }
  const body = isUpload(req)
    ? (Readable.toWeb(req) as ReadableStream<Uint8Array>)
    : Buffer.isBuffer(req.body) && req.body.length > 0
      ? req.body
      : undefined;
  const length = req.get('content-length');
  if (isUpload(req) && length !== undefined) headers.set('content-length', length);
  let upstream: globalThis.Response;
  try {
    upstream = await fetch(`${options.gatewayUrl}${req.url}`, {
      method: req.method,
      headers,
      ...(body === undefined ? {} : { body, duplex: 'half' }),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw upstreamError(error);
  }
  res.status(upstream.status);
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE.has(name)) res.setHeader(name, value);
  });
  if (upstream.body === null) {
    res.end();
    return;
  }
  const stream = Readable.fromWeb(upstream.body as WebReadableStream<Uint8Array>);
  stream.on('error', (error) => {
    // Headers are gone already: the only honest signal left is a cut connection.
    options.logger.warn({ err: error }, 'gateway response interrupted');
    res.destroy(error);
  });
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

function upstreamError(error: unknown): AppError {
  if (error instanceof DOMException && error.name === 'TimeoutError')
    return new AppError('gateway_timeout', 'The API did not answer in time; try again.', { cause: error });
  return new AppError('service_unavailable', 'The API cannot be reached right now; try again shortly.', {
    cause: error,
    retryable: true,
    headers: { 'Retry-After': '5' },
  });
}

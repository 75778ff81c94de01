import type { Request, Response, Router } from 'express';
import { AppError } from '@svc/errors';
import { currentContext, type Logger } from '@svc/logger';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rateLimitHeaders } from '../rate-limit/rate-limiter.ts';
import { createRequestValidator, createResponseValidator } from './request-validator.ts';
import { requestIdOf } from './request-id.ts';
import type { Route, RouteRequest, RouteResult } from './route.ts';

export interface MountDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Check every response against its declared schema; a mismatch is a 500 (on in tests). */
  validateResponses: boolean;
  observe?: (labels: { method: string; route: string; status: number }, seconds: number) => void;
}

/** `/v1/publish/{job_id}/cancel` -> `/v1/publish/:job_id/cancel` */
function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

async function authorize(route: Route, req: Request, res: Response, deps: MountDeps): Promise<Principal | undefined> {
  const { auth } = route.operation;
  if (auth === 'none') return undefined;
  const principal = await deps.authenticator.authenticate(req.get('authorization'), auth);
  const context = currentContext();
  if (context !== undefined) context.orgId = principal.orgId;
  const limits = await deps.rateLimiter.consume(principal);
  for (const [name, value] of Object.entries(rateLimitHeaders(limits))) res.setHeader(name, value);
  return principal;
}

function checkContentType(route: Route, req: Request): void {
  const { body, rawBodyTypes = [] } = route.operation;
  if (body === undefined || !hasBody(req)) return;
  if (req.is(['application/json', 'application/*+json', ...rawBodyTypes]) === false) {
    throw new AppError('unsupported_media_type', `Send the body as application/json${rawBodyTypes.length > 0 ? ` or one of ${rawBodyTypes.join(', ')}` : ''}.`);
  }
}

/** A request whose body the handler reads itself (an upload), rather than the JSON parser. */
function isStreamed(route: Route, req: Request): boolean {
  const { streamRawBody = false, rawBodyTypes = [] } = route.operation;
  return streamRawBody && hasBody(req) && rawBodyTypes.length > 0 && req.is(rawBodyTypes) !== false && req.is(['application/json', 'application/*+json']) === false;
}

function send(res: Response, result: RouteResult): void {
  if ('redirect' in result) {
    res.redirect(302, result.redirect);
    return;
  }
  if ('stream' in result) {
    res.status(result.status);
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    // A client that goes away must not leave the storage stream open.
    res.once('close', () => result.stream.destroy());
    result.stream.once('error', (error) => res.destroy(error));
    result.stream.pipe(res);
    return;
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}

/** Registers declarative routes: auth, rate limit, content type, validation, handler, response check. */
export function mountRoutes(router: Router, routes: readonly Route[], deps: MountDeps): void {
  for (const route of routes) {
    const { operation } = route;
    const validate = createRequestValidator(operation);
    const responseValidators = new Map(
      Object.entries(operation.responses)
        .filter(([, schema]) => schema !== null)
        .map(([status, schema]) => [Number(status), createResponseValidator(schema!)]),
    );
    router[operation.method](expressPath(operation.path), async (req: Request, res: Response) => {
      const started = process.hrtime.bigint();
      const principal = await authorize(route, req, res, deps);
      checkContentType(route, req);
      const streamed = isStreamed(route, req);
      const parts = { params: { ...req.params }, query: { ...(req.query as Record<string, unknown>) }, body: streamed ? undefined : (req.body as unknown) };
      validate(parts, { skipBody: streamed });
      const request = { ...parts, principal, requestId: requestIdOf(res), headers: req.headers, stream: streamed ? req : undefined } as unknown as RouteRequest<typeof operation>;
      const result = await route.handler(request);
      if (deps.validateResponses && !('redirect' in result) && !('stream' in result)) {
        const problems = responseValidators.get(result.status)?.(result.body) ?? [];
        if (problems.length > 0) {
          deps.logger.error({ operation: operation.operationId, problems }, 'response does not match its schema');
          throw new AppError('internal_error', 'The response did not match its declared schema.', { details: problems });
        }
      }
      send(res, result);
      deps.observe?.({ method: operation.method, route: operation.path, status: res.statusCode }, Number(process.hrtime.bigint() - started) / 1e9);
    });
  }
}

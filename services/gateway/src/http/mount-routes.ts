import type { Request, Response, Router } from 'express';
import { AppError, isAppError } from '@svc/errors';
import { currentContext, type Logger } from '@svc/logger';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import { assertScopeAllows } from '../auth/scope-guard.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rateLimitHeaders } from '../rate-limit/rate-limiter.ts';
import { createRequestValidator, createResponseValidator } from './request-validator.ts';
import { assertSafeInput } from './safe-input.ts';
import { requestIdOf } from '@svc/http-server';
import type { Route, RouteRequest, RouteResult } from './route.ts';

export interface MountDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Check every response against its declared schema; a mismatch is a 500 (on in tests). */
  validateResponses: boolean;
  /** Reads and parses a JSON body; called only once the caller is authenticated. */
  parseBody: (req: Request, res: Response, raw: boolean, large?: boolean) => Promise<void>;
  observe?: (labels: { method: string; route: string; status: number }, seconds: number) => void;
}

/** `/v1/publish/{job_id}/cancel` -> `/v1/publish/:job_id/cancel` */
function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Authenticated calls count against their key and organization. Anonymous ones (endpoints without
 * auth, and failed authentication) count against the client address, so neither a flood of callbacks
 * nor a brute force of keys goes unlimited.
 */
async function authorize(route: Route, req: Request, res: Response, deps: MountDeps): Promise<Principal | undefined> {
  const { auth } = route.operation;
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (auth === 'none') {
    if (route.operation.anonymousUnlimited !== true)
      await deps.rateLimiter.consumeAnonymous(address, route.operation.anonymousBucket);
    return undefined;
  }
  const principal = await authenticateAndCount(req, res, deps, auth);
  // After counting: a key calling what its scope forbids spends its budget like any other call.
  assertScopeAllows(principal, route.operation);
  return principal;
}

/**
 * Authenticates a request for `mode` and counts it against its key and organization (setting the
 * RateLimit headers); a failed authentication counts against the client address. Shared by the
 * declarative routes and the MCP endpoint.
 */
export async function authenticateAndCount(
  req: Request,
  res: Response,
  deps: Pick<MountDeps, 'authenticator' | 'rateLimiter'>,
  mode: Exclude<Route['operation']['auth'], 'none'>,
): Promise<Principal> {
  let principal: Principal;
  try {
    principal = await deps.authenticator.authenticate(req.get('authorization'), mode);
  } catch (error) {
    if (isAppError(error) && error.code === 'unauthorized')
      await deps.rateLimiter.consumeAnonymous(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    throw error;
  }
  const context = currentContext();
  if (context !== undefined) {
    context.orgId = principal.orgId;
    if (principal.kind === 'api_key') context.apiKeyId = principal.apiKeyId;
  }
  const limits = await deps.rateLimiter.consume(principal);
  for (const [name, value] of Object.entries(rateLimitHeaders(limits))) res.setHeader(name, value);
  return principal;
}

/** The parsed JSON body; `{}` for an operation whose body may be left out when none was sent. */
function bodyOf(operation: Route['operation'], req: Request): unknown {
  if (operation.optionalBody === true && !hasBody(req)) return {};
  return req.body as unknown;
}

function checkContentType(route: Route, req: Request): void {
  const { body, rawBodyTypes = [] } = route.operation;
  if (body === undefined || !hasBody(req)) return;
  if (req.is(['application/json', 'application/*+json', ...rawBodyTypes]) === false) {
    throw new AppError(
      'unsupported_media_type',
      `Send the body as application/json${rawBodyTypes.length > 0 ? ` or one of ${rawBodyTypes.join(', ')}` : ''}.`,
    );
  }
}

/** A request whose body the handler reads itself (an upload), rather than the JSON parser. */
function isStreamed(route: Route, req: Request): boolean {
  const { streamRawBody = false, rawBodyTypes = [] } = route.operation;
  return (
    streamRawBody &&
    hasBody(req) &&
    rawBodyTypes.length > 0 &&
    req.is(rawBodyTypes) !== false &&
    req.is(['application/json', 'application/*+json']) === false
  );
}

function send(res: Response, result: RouteResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if ('redirect' in result) {
    res.redirect(302, result.redirect);
    return;
  }
  if ('stream' in result) {
    res.status(result.status);
    // A client that goes away must not leave the storage stream open.
    res.once('close', () => result.stream.destroy());
    result.stream.once('error', (error) => res.destroy(error));
    result.stream.pipe(res);
    return;
  }
  if (result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}

/**
 * One line per request once answered, errors included, naming who called (organization and API key,
 * set on the request's context by `authorize`) so a key's use can be traced and a leaked key's calls
 * found. Headers and bodies never reach it.
 */
function logWhenFinished(res: Response, operation: Route['operation'], started: bigint, logger: Logger): void {
  const context = currentContext();
  res.once('finish', () =>
    logger.info(
      {
        request_id: context?.requestId,
        org_id: context?.orgId,
        api_key_id: context?.apiKeyId,
        method: operation.method.toUpperCase(),
        route: operation.path,
        status: res.statusCode,
        duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
      },
      'request',
    ),
  );
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
      logWhenFinished(res, operation, started, deps.logger);
      const principal = await authorize(route, req, res, deps);
      checkContentType(route, req);
      if (operation.body !== undefined || operation.rawBody !== undefined)
        await deps.parseBody(req, res, operation.rawBody !== undefined, operation.largeBody === true);
      const streamed = isStreamed(route, req);
      const rawBody = operation.rawBody !== undefined && Buffer.isBuffer(req.body) ? req.body : undefined;
      const parts = {
        params: { ...req.params },
        query: { ...(req.query as Record<string, unknown>) },
        body: streamed || operation.rawBody !== undefined ? undefined : bodyOf(operation, req),
      };
      assertSafeInput('params', parts.params);
      assertSafeInput('query', parts.query);
      assertSafeInput('body', parts.body);
      validate(parts, { skipBody: streamed });
      const request = {
        ...parts,
        principal,
        requestId: requestIdOf(res),
        headers: req.headers,
        address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
        rawBody,
        stream: streamed ? req : undefined,
      } as unknown as RouteRequest<typeof operation>;
      const result = await route.handler(request);
      if (deps.validateResponses && !('redirect' in result) && !('stream' in result)) {
        const problems = responseValidators.get(result.status)?.(result.body) ?? [];
        if (problems.length > 0) {
          deps.logger.error({ operation: operation.operationId, problems }, 'response does not match its schema');
          throw new AppError('internal_error', 'The response did not match its declared schema.', {
            details: problems,
          });
        }
      }
      send(res, result);
      deps.observe?.(
        { method: operation.method, route: operation.path, status: res.statusCode },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
  }
}

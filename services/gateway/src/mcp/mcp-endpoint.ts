import type { Express, Request, Response } from 'express';
import { AppError, forbidden, validationError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type * as McpLibrary from '@svc/mcp';
import type { McpTool, OpenApiDocument } from '@svc/mcp';
import type { Authenticator } from '../auth/authenticator.ts';
import { authenticateAndCount } from '../http/mount-routes.ts';
import { requestIdOf } from '@svc/http-server';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';

export interface McpEndpointOptions {
  /** The OpenAPI document the tools are derived from: the gateway's own. */
  document: OpenApiDocument;
  /** Where tool calls reach this gateway's REST API (MCP_API_BASE_URL); default: the address and port the request came in on. */
  apiBaseUrl?: string | undefined;
  fetch?: typeof fetch;
}

export interface McpEndpointDeps extends McpEndpointOptions {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Reads and parses a JSON body within the gateway's body limit. */
  parseJson: (req: Request, res: Response) => Promise<void>;
}

/** This process, as the request reached it: an address and port it certainly listens on. */
function arrivalAddress(req: Request): string {
  const { localAddress = '127.0.0.1', localPort } = req.socket;
  return `http://${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}`;
}

/**
 * `POST /mcp`: the MCP server for agents (Streamable HTTP, JSON-RPC 2.0, stateless). The caller is an
 * API key, authenticated and rate limited like any REST call. Each tool call is an HTTP call back into
 * this gateway's REST API with the same Authorization, so scopes, rate limits, idempotency and
 * tenant isolation are exactly those of REST: the MCP layer holds no rule of its own.
 */
export function mountMcpEndpoint(app: Express, deps: McpEndpointDeps): void {
  // The MCP SDK (with zod) costs a process about 30 MB of RSS and 0.7 s to load: loaded on the
  // first /mcp request, so a gateway no agent talks to never pays it. The tools are built then
  // too, not at start-up: a document that cannot give every tool fails /mcp (500, logged with the
  // missing operations) without taking the REST API down with it.
  let mcp: Promise<typeof McpLibrary> | undefined;
  let tools: McpTool[] | undefined;
  const loaded = async () => {
    const module = await (mcp ??= import('@svc/mcp'));
    tools ??= module.buildTools(deps.document);
    return { ...module, tools };
  };

  app.post('/mcp', async (req: Request, res: Response) => {
    const principal = await authenticateAndCount(req, res, deps, 'api_key_or_jwt');
    if (principal.kind !== 'api_key')
      throw forbidden('The MCP endpoint accepts an API key only (Authorization: Bearer svc_...): an agent is a key.');
    if (req.is(['application/json', 'application/*+json']) === false)
      throw new AppError('unsupported_media_type', 'Send the JSON-RPC message as application/json.');
    await deps.parseJson(req, res);
    if (req.body === undefined || req.body === null) throw validationError('Send a JSON-RPC message as the body.');
    const requestId = requestIdOf(res);
    const { createMcpServer, httpCaller, serveHttpRequest, tools: built } = await loaded();
    const server = createMcpServer({
      tools: built,
      caller: httpCaller({
        baseUrl: deps.apiBaseUrl ?? arrivalAddress(req),
        authorization: req.get('authorization')!,
        document: deps.document,
        headers: { 'x-request-id': requestId },
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      }),
      requestId: () => requestId,
      onToolCall: (call) =>
        deps.logger.info(
          {
            tool: call.tool,
            operation: call.operationId,
            api_key_id: principal.apiKeyId,
            request_id: requestId,
            outcome: call.outcome,
            status: call.status,
            error_code: call.errorCode,
          },
          'mcp tool call',
        ),
    });
    await serveHttpRequest(server, req, res, req.body);
  });

  const notAllowed = (req: Request) => {
    throw new AppError(
      'method_not_allowed',
      `${req.method} /mcp is not served: the MCP endpoint is stateless and takes POST only (no event stream, no session).`,
      { headers: { Allow: 'POST' } },
    );
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

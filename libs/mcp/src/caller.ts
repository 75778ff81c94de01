import { randomUUID } from 'node:crypto';
import { type HttpMethod, type OpenApiDocument, operationInput } from './openapi-input.ts';

/** One call of the public API, named by operationId, with its inputs already sorted by location. */
export interface CallRequest {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The API's answer: its status and parsed JSON body (undefined when it had none). */
export interface CallResponse {
  status: number;
  body: unknown;
}

/**
 * How the MCP server reaches the REST API. Every tool call goes through one of these, so a tool does
 * exactly what its REST operation does (authentication, scopes, rate limits, idempotency, tenancy).
 * Throws only when the API could not be reached or answered something that is not JSON.
 */
export type Caller = (operationId: string, request: CallRequest) => Promise<CallResponse>;

export interface HttpCallerOptions {
  /** The API's base URL, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** The whole Authorization header, e.g. `Bearer svc_...`. */
  authorization: string;
  /** The OpenAPI document whose paths give each operation's method and path. */
  document: OpenApiDocument;
  /** Headers sent with every call, e.g. the X-Request-Id of the MCP request that caused it. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A Caller over plain fetch. Every POST carries a fresh Idempotency-Key: a request retried by the
 * network below fetch is then applied once by the API.
 */
export function httpCaller(options: HttpCallerOptions): Caller {
  const doFetch = options.fetch ?? fetch;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const routes = new Map<string, { method: HttpMethod; path: string }>();
  const route = (operationId: string) => {
    let found = routes.get(operationId);
    if (found === undefined) {
      const { method, path } = operationInput(options.document, operationId);
      found = { method, path };
      routes.set(operationId, found);
    }
    return found;
  };
  return async (operationId, request) => {
    const { method, path } = route(operationId);
    const url =
      baseUrl +
      path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(request.path?.[name] ?? '')) +
      queryString(request.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...options.headers,
      ...request.headers,
      authorization: options.authorization,
    };
    if (method === 'post') headers['idempotency-key'] ??= randomUUID();
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    const response = await doFetch(url, {
      method: method.toUpperCase(),
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    if (text === '') return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      throw new Error(`${operationId} answered ${response.status} with a body that is not JSON.`);
    }
  };
}

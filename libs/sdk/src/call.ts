// The one way every call leaves the SDK: `call(operationId, input)` finds the operation's method and
// path in the OpenAPI document, lets openapi-fetch build the request, sends it through the transport
// (deadlines, retries) and turns an error answer into SvcApiError. The resource methods, the CLI and
// the MCP server all go through it.
import createOpenApiClient from 'openapi-fetch';
import {
  routeOf,
  type OperationId,
  type PathParams,
  type QueryParams,
  type RequestBody,
  type ResponseData,
  type paths,
} from './contract.ts';
import { SvcApiError } from './errors.ts';
import { networkError, type Transport } from './transport.ts';

/** Per-call options every method takes. */
export interface RequestOptions {
  /** `Idempotency-Key` of a POST (default: a new random UUID per call, the same on each of its retries). */
  idempotencyKey?: string;
  /** Cancels the call: the attempt in flight and any wait between attempts. */
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

type PathPart<O extends OperationId> = [PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> };
type QueryPart<O extends OperationId> = [QueryParams<O>] extends [never]
  ? { query?: undefined }
  : { query?: QueryParams<O> };
type BodyPart<O extends OperationId> = [RequestBody<O>] extends [never]
  ? { body?: undefined }
  : { body: RequestBody<O> };

/** The input of `call` for one operation: its path parameters, query and JSON body, typed from the document. */
export type CallInput<O extends OperationId> = PathPart<O> & QueryPart<O> & BodyPart<O> & RequestOptions;

/** The input is optional only for operations with no path parameters and no body. */
export type CallArgs<O extends OperationId> = [PathParams<O>] extends [never]
  ? [RequestBody<O>] extends [never]
    ? [input?: CallInput<O>]
    : [input: CallInput<O>]
  : [input: CallInput<O>];

export type Call = <O extends OperationId>(operationId: O, ...args: CallArgs<O>) => Promise<ResponseData<O>>;

export interface CallerOptions {
  baseUrl: string;
  transport: Transport;
  /** The bearer credential of each request (an API key, or a dashboard JWT that may be renewed). */
  credential: () => string | undefined | Promise<string | undefined>;
  userAgent: string;
}

type LooseClient = {
  request(
    method: string,
    path: string,
    init: Record<string, unknown>,
  ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
};

/**
 * A request body the SDK makes itself instead of JSON (media uploads): `make` is called once per
 * attempt, since a body is read once; `replayable: false` (a stream) allows a single attempt.
 */
export interface RawBody {
  make: () => { body: NonNullable<RequestInit['body']>; contentType: string | undefined };
  replayable: boolean;
}

/** Builds an attempt's request: openapi-fetch's, with the attempt's signal and, for uploads, its body. */
function attemptRequest(request: Request, signal: AbortSignal, raw: RawBody | undefined): Request {
  if (raw === undefined) return new Request(request.clone(), { signal });
  const { body, contentType } = raw.make();
  const headers = new Headers(request.headers);
  if (contentType !== undefined) headers.set('Content-Type', contentType);
  // duplex: a streamed request body (fetch in Node and browsers requires the option for one).
  return new Request(request.url, { method: request.method, headers, body, signal, duplex: 'half' } as RequestInit);
}

/** A call's input once its operation is no longer known statically. */
type LooseInput = RequestOptions & { path?: object; query?: object; body?: unknown };

export function createCall(options: CallerOptions) {
  const api = createOpenApiClient<paths>({ baseUrl: options.baseUrl }) as unknown as LooseClient;
  const send = async (operationId: OperationId, input: LooseInput, raw?: RawBody) => {
    const route = routeOf(operationId);
    const headers: Record<string, string> = { 'User-Agent': options.userAgent, ...input.headers };
    const credential = await options.credential();
    if (credential !== undefined) headers.Authorization = `Bearer ${credential}`;
    if (route.method === 'POST') headers['Idempotency-Key'] = input.idempotencyKey ?? crypto.randomUUID();
    const signal = input.signal;
    try {
      const { data, error, response } = await api.request(route.method.toLowerCase(), route.path, {
        params: { path: input.path, query: input.query },
        ...(input.body === undefined ? {} : { body: input.body }),
        headers,
        fetch: (request: Request) =>
          options.transport.send((attempt) => attemptRequest(request, attempt, raw), {
            repeatable: route.repeatable,
            signal,
            replayable: raw?.replayable ?? true,
          }),
      });
      if (!response.ok) throw new SvcApiError(response.status, error, response.headers);
      return data as never;
    } catch (error) {
      if (error instanceof SvcApiError) throw error;
      throw networkError(error, signal);
    }
  };
  const call: Call = (operationId, ...args) => send(operationId, (args[0] ?? {}) as LooseInput);
  return { call, callWithRawBody: send };
}

export type CallWithRawBody = ReturnType<typeof createCall>['callWithRawBody'];

import type { Readable } from 'node:stream';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Principal } from '../auth/principal.ts';
import type { Operation } from '../openapi/operation.ts';

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

/** What a handler sees: the validated request parts, typed from the operation's schemas. */
export interface RouteRequest<O extends Operation> {
  params: StaticOr<O['params'], Record<string, never>>;
  query: StaticOr<O['query'], Record<string, never>>;
  body: StaticOr<O['body'], undefined>;
  principal: O['auth'] extends 'none' ? Principal | undefined : Principal;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  /** The client's address (behind TRUST_PROXY_HOPS proxies), for per-address limits of anonymous routes. */
  address: string;
  /** The exact body bytes, for operations declaring `rawBody` (undefined otherwise). */
  rawBody: Buffer | undefined;
  /** The unread request body, for operations with `streamRawBody` when the body is not JSON. */
  stream?: Readable | undefined;
}

export type RouteResult =
  | { status: number; body?: unknown; headers?: Record<string, string | string[]> }
  | { redirect: string; headers?: Record<string, string | string[]> }
  /** Bytes streamed as they are (media files), not JSON. */
  | { status: number; headers: Record<string, string>; stream: Readable };

/** A declarative route: the operation (path, auth, schemas) and the handler that calls one use case. */
export interface Route<O extends Operation = Operation> {
  operation: O;
  handler: (request: RouteRequest<O>) => Promise<RouteResult>;
}

export function defineRoute<O extends Operation>(operation: O, handler: Route<O>['handler']): Route {
  return { operation, handler } as unknown as Route;
}

import type { TSchema } from '@sinclair/typebox';
import type { AnonymousBucket } from '../rate-limit/rate-limiter.ts';

/** Who may call: nobody in particular, an API key or a dashboard JWT, or a dashboard JWT only. */
export type AuthMode = 'none' | 'api_key_or_jwt' | 'jwt';

/**
 * One endpoint of the public API, declared once: the OpenAPI document, request validation and the
 * route table are all derived from these declarations.
 */
export interface Operation {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path, e.g. `/v1/publish/{job_id}/cancel`. */
  path: string;
  summary: string;
  tag: string;
  auth: AuthMode;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** Other request content types accepted besides JSON (e.g. binary media uploads). */
  rawBodyTypes?: string[];
  /**
   * The body is kept as the exact bytes received (any content type, same size limit) and reaches the
   * handler as `rawBody`, unparsed and unvalidated: for signatures computed over the raw body (Stripe
   * webhooks, HTML forms). `schema` only documents it, as `contentType` (JSON unless named).
   */
  rawBody?: { schema: TSchema; contentType?: string };
  /**
   * A request of one of `rawBodyTypes` is handed to the handler as a stream (`RouteRequest.stream`),
   * unread and unvalidated, so large uploads never sit in memory; JSON bodies are validated as usual.
   */
  streamRawBody?: boolean;
  /**
   * Exempt from the per-address limit on anonymous calls: public media bytes, which the networks'
   * crawlers fetch in bursts from a few addresses (a 429 there fails the post on the network). Such
   * a route bounds its callers itself (public media: PublicMediaLimiter), with limits sized for that.
   */
  anonymousUnlimited?: boolean;
  /**
   * The per-address bucket an anonymous call counts in, when not the shared one: each has its own
   * limit, so junk traffic that exhausts an address's shared bucket cannot answer 429 to Stripe's
   * webhooks or to a user's OAuth callback from that address (an office NAT, a misconfigured proxy).
   */
  anonymousBucket?: Exclude<AnonymousBucket, 'address'>;
  /**
   * Changes nothing although not a GET (post validation): an API key of scope `read_validate` may
   * call it (auth/scope-guard.ts). Every GET is read-only already.
   */
  readOnly?: true;
  /**
   * The JSON body, or a streamed upload, may be as large as BULK_BODY_LIMIT_BYTES rather than
   * BODY_LIMIT_BYTES (a bulk of posts).
   */
  largeBody?: true;
  /**
   * JSON pointer of the body's array of rows (a bulk's `/posts`): a schema problem inside a row is
   * reported with that row (1-based), a path inside it and the schema keyword as its rule, the way
   * the rows' other problems are.
   */
  rows?: string;
  /** The JSON body may be left out, and then stands for `{}` (a draft's publish, a retry). */
  optionalBody?: true;
  /** Request headers documented for the operation, such as `Idempotency-Key`. */
  headers?: Record<string, TSchema>;
  /**
   * Statuses answered with an HTML page for people rather than JSON (the OAuth hand-off link opened
   * in a browser), each with what its page says; a success status listed here has a null schema.
   */
  htmlPages?: Record<number, string>;
  /** Success status -> schema (null for an empty body). */
  responses: Record<number, TSchema | null>;
  /** Error statuses this operation may answer, besides the ones every endpoint can (401, 429, 500...). */
  errors: number[];
}

export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}

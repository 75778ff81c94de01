import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { checkUrl, safeAgents, type SsrfPolicy } from './ssrf-guard.ts';

/**
 * Why a bounded fetch stopped. `too_large` comes either from the announced Content-Length (before any
 * body byte is read) or from the byte count while streaming; `deadline` bounds the whole exchange,
 * body included, so a server that drips one byte every few seconds cannot hold a caller for long.
 */
export type FetchFailureReason =
  | 'invalid'
  | 'scheme'
  | 'unresolvable'
  | 'blocked'
  | 'too_many_redirects'
  | 'status'
  | 'too_large'
  | 'deadline'
  | 'network';

export class FetchLimitError extends Error {
  override name = 'FetchLimitError';
  constructor(
    readonly reason: FetchFailureReason,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface BoundedFetchOptions {
  policy: SsrfPolicy;
  /** Total time for the request, every redirect and the whole body. */
  deadlineMs: number;
  /** Largest body accepted; a larger Content-Length is refused before reading the body. */
  maxBytes: number;
  /** Redirect hops followed, each one checked like the first URL (docs/api-conventions.md, "URLs users give us": 5). */
  maxRedirects?: number;
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
}

export interface BoundedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The announced length, when the server sent a valid one. */
  contentLength: number | undefined;
  /**
   * The body, counted and cut at `maxBytes`, failing with a `FetchLimitError` once the deadline
   * passes. Consume or destroy it: the deadline timer ends with it.
   */
  body: Readable;
}

const agentsByPolicy = new Map<boolean, ReturnType<typeof safeAgents>>();
const agentsFor = (policy: SsrfPolicy) => {
  let agents = agentsByPolicy.get(policy.allowPrivate);
  if (agents === undefined) {
    agents = safeAgents(policy, { keepAlive: false });
    agentsByPolicy.set(policy.allowPrivate, agents);
  }
  return agents;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Counts bytes through and fails past the cap, so a lying or absent Content-Length cannot overflow memory. */
class ByteCap extends Transform {
  private seen = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes)
      return callback(new FetchLimitError('too_large', `the body is larger than ${this.maxBytes} bytes`));
    callback(null, chunk);
  }
}

/**
 * One exchange with the server at `address`, the vetted address of the URL's host: the socket goes to
 * it (the agent checks that literal again before connecting), never to a fresh resolution of the name,
 * while the Host header and TLS (SNI and the certificate's name) keep the URL's host.
 */
function requestOnce(
  url: URL,
  address: string,
  options: BoundedFetchOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const agents = agentsFor(options.policy);
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const request = transport.request({
      protocol: url.protocol,
      host: address,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: options.method ?? 'GET',
      agent: secure ? agents.httpsAgent : agents.httpAgent,
      headers: { 'user-agent': 'svc-media-fetch/1', accept: '*/*', ...options.headers, host: url.host },
      ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
      signal,
    });
    request.once('response', resolve);
    // `on`, not `once`: an abort after the response still emits here, and must not go unhandled.
    request.on('error', reject);
    request.end();
  });
}

const failureOf = (error: unknown, timedOut: boolean, deadlineMs: number): FetchLimitError => {
  if (timedOut) return new FetchLimitError('deadline', `no complete answer within ${deadlineMs} ms`);
  if (error instanceof FetchLimitError) return error;
  if ((error as { code?: string } | null)?.code === 'ERR_SSRF_BLOCKED')
    return new FetchLimitError('blocked', (error as Error).message);
  return new FetchLimitError(
    'network',
    `the server could not be reached (${(error as { code?: string } | null)?.code ?? (error as Error | null)?.message ?? 'network error'})`,
  );
};

/**
 * GET (or HEAD) a user-given URL under the SSRF policy with hard limits: every hop pre-checked and
 * connect-time filtered, at most `maxRedirects` redirects, an early refusal on Content-Length, a byte
 * cap while streaming, and one deadline for everything. Non-2xx answers fail with reason `status`.
 */
export async function boundedFetch(rawUrl: string, options: BoundedFetchOptions): Promise<BoundedResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.deadlineMs);
  const maxRedirects = options.maxRedirects ?? 5;
  let current = rawUrl;
  try {
    for (let hop = 0; ; hop += 1) {
      const checked = await checkUrl(current, options.policy);
      if (!checked.ok) throw new FetchLimitError(checked.reason, checked.message);
      if (timedOut) throw new FetchLimitError('deadline', `no complete answer within ${options.deadlineMs} ms`);
      const response = await requestOnce(checked.url, checked.addresses[0]!, options, controller.signal);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status) && typeof response.headers.location === 'string') {
        response.resume();
        if (hop >= maxRedirects) throw new FetchLimitError('too_many_redirects', `more than ${maxRedirects} redirects`);
        current = new URL(response.headers.location, checked.url).toString();
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new FetchLimitError('status', `the server answered HTTP ${status}`, status);
      }
      const announced = Number(response.headers['content-length']);
      const contentLength = Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined;
      if (contentLength !== undefined && contentLength > options.maxBytes) {
        response.destroy();
        throw new FetchLimitError(
          'too_large',
          `the server announced ${contentLength} bytes, more than the limit of ${options.maxBytes}`,
        );
      }
      const body = new ByteCap(options.maxBytes);
      const done = () => clearTimeout(timer);
      body.once('end', done).once('error', done).once('close', done);
      response.once('error', (error) => body.destroy(failureOf(error, timedOut, options.deadlineMs)));
      response.once('aborted', () => body.destroy(failureOf(undefined, timedOut, options.deadlineMs)));
      body.once('close', () => response.destroy());
      response.pipe(body);
      return { url: checked.url.toString(), status, headers: response.headers, contentLength, body };
    }
  } catch (error) {
    clearTimeout(timer);
    throw failureOf(error, timedOut, options.deadlineMs);
  }
}

/** Reads a bounded body whole (small files only: the cap is the memory bound). */
export async function readBounded(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

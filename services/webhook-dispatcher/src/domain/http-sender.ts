import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { safeAgents, type SsrfPolicy } from '@svc/http';
import { describeAttemptError } from './attempt-error.ts';

export interface SendResult {
  /** null when no HTTP response came back (refused, blocked, timed out). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first bytes of the response body, up to the cap. */
  excerpt: string | null;
  retryAfter: string | undefined;
}

export interface HttpSenderOptions {
  policy: SsrfPolicy;
  timeoutMs: number;
  /** Until the TCP connection is up (name resolved, address checked, handshake done); part of `timeoutMs`. */
  connectTimeoutMs: number;
  responseCapBytes: number;
  /** Sockets per receiver host:port (kept open across deliveries); at least the process's concurrency. */
  maxSockets: number;
}

/**
 * POSTs one delivery through the SSRF guard of libs/http: the address each socket really connects to
 * is checked (after DNS, so a rebinding hostname is refused at connect time). Redirects are never
 * followed (node:http does not), a new connection must be up within `connectTimeoutMs`, the whole
 * exchange is bounded by `timeoutMs` (or the call's own, shorter for test sends), and at most
 * `responseCapBytes` of the body are read before the response is dropped. Errors say nothing of the
 * address (attempt-error.ts). Never throws.
 */
export class HttpSender {
  private readonly agents: { httpAgent: http.Agent; httpsAgent: https.Agent };

  constructor(private readonly options: HttpSenderOptions) {
    this.agents = safeAgents(options.policy, {
      keepAlive: true,
      maxSockets: options.maxSockets,
      timeout: options.timeoutMs,
    });
  }

  send(
    url: string,
    headers: Record<string, string>,
    body: string,
    options: { timeoutMs?: number } = {},
  ): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let request: http.ClientRequest | undefined;
      let connectTimer: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        fail(`No complete response within ${timeoutMs} ms.`);
        request?.destroy();
      }, timeoutMs);
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(connectTimer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const fail = (error: string) => finish({ statusCode: null, error, excerpt: null, retryAfter: undefined });
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        fail('The endpoint URL is not valid.');
        return;
      }
      const secure = target.protocol === 'https:';
      const payload = Buffer.from(body, 'utf8');
      try {
        request = (secure ? https : http).request(target, {
          method: 'POST',
          agent: secure ? this.agents.httpsAgent : this.agents.httpAgent,
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': String(payload.length),
            'User-Agent': 'svc-webhooks/1',
          },
        });
      } catch (error) {
        // The guard refuses IP-literal targets synchronously, before any socket exists.
        fail(describeAttemptError(error));
        return;
      }
      request.on('error', (error) => fail(describeAttemptError(error)));
      request.on('socket', (socket: Socket) => {
        // A kept-alive socket is connected already; a new one gets the connect budget.
        if (!socket.connecting) return;
        connectTimer = setTimeout(
          () => {
            fail(`Could not connect to the receiver within ${this.options.connectTimeoutMs} ms.`);
            request?.destroy();
          },
          Math.min(this.options.connectTimeoutMs, timeoutMs),
        );
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            statusCode: response.statusCode ?? null,
            error: null,
            excerpt: size === 0 ? null : Buffer.concat(chunks).toString('utf8').slice(0, this.options.responseCapBytes),
            retryAfter: header(response.headers['retry-after']),
          });
        response.on('data', (chunk: Buffer) => {
          const room = this.options.responseCapBytes - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += Math.min(room > 0 ? room : 0, chunk.length);
          if (size >= this.options.responseCapBytes) {
            // Enough read: the rest is never downloaded (the socket is dropped, not reused).
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', () => done());
        response.on('close', done);
      });
      request.end(payload);
    });
  }

  close(): void {
    this.agents.httpAgent.destroy();
    this.agents.httpsAgent.destroy();
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

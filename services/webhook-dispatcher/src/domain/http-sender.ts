import http from 'node:http';
import https from 'node:https';
import { safeAgents, type SsrfPolicy } from '@svc/http';

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
  responseCapBytes: number;
  /** Sockets per receiver host:port (kept open across deliveries); at least the process's concurrency. */
  maxSockets: number;
}

/**
 * POSTs one delivery through the SSRF guard of libs/http: the address each socket really connects to
 * is checked (after DNS, so a rebinding hostname is refused at connect time). Redirects are never
 * followed (node:http does not), the whole exchange is bounded by `timeoutMs`, and at most
 * `responseCapBytes` of the body are read before the response is dropped. Never throws.
 */
export class HttpSender {
  private readonly agents: { httpAgent: http.Agent; httpsAgent: https.Agent };

  constructor(private readonly options: HttpSenderOptions) {
    this.agents = safeAgents(options.policy, { keepAlive: true, maxSockets: options.maxSockets, timeout: options.timeoutMs });
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let request: http.ClientRequest | undefined;
      const timer = setTimeout(() => {
        fail(`No complete response within ${this.options.timeoutMs} ms.`);
        request?.destroy();
      }, this.options.timeoutMs);
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
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
          headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(payload.length), 'User-Agent': 'svc-webhooks/1' },
        });
      } catch (error) {
        // The guard refuses IP-literal targets synchronously, before any socket exists.
        fail(describe(error));
        return;
      }
      request.on('error', (error) => fail(describe(error)));
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

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_SSRF_BLOCKED') return `Blocked: ${error.message}`;
    return code === undefined ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

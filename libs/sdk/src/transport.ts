// Sends one call's request, attempt after attempt: a deadline per attempt, and the retries of
// retry-policy.ts with the waits between them. Everything else (auth, headers, bodies) is set by the
// caller before; each attempt gets a fresh Request from `makeRequest`, since a body is read once.
import { sleep } from './sleep.ts';
import { SvcNetworkError } from './errors.ts';
import { nextRetryDelay, type RetryPolicy } from './retry-policy.ts';

export type FetchLike = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  retry: RetryPolicy;
  /** Deadline of one attempt, until its response headers and body are read (default 30 s). */
  timeoutMs: number;
}

export interface SendOptions {
  repeatable: boolean;
  /** The caller's cancellation: aborts the attempt in flight and any wait, and is rethrown as is. */
  signal?: AbortSignal | undefined;
  /** False when the body cannot be produced twice (a stream): one attempt only. */
  replayable?: boolean;
}

/** Connection failures that mean the request never left: repeating it cannot do the work twice. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

function unsent(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && UNSENT_CODES.has(code);
}

/** The signal of one attempt: the caller's, or the attempt's own deadline, whichever comes first. */
export function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined): AbortSignal {
  const deadline = AbortSignal.timeout(timeoutMs);
  return caller === undefined ? deadline : AbortSignal.any([caller, deadline]);
}

/** Turns a failure to get an answer into SvcNetworkError, or rethrows the caller's own abort. */
export function networkError(error: unknown, caller: AbortSignal | undefined): unknown {
  if (error instanceof SvcNetworkError) return error;
  if (caller?.aborted) return caller.reason;
  // By name, not instanceof: fetch's errors may come from another realm (a VM context, a test runner).
  const name = typeof error === 'object' && error !== null ? String((error as { name?: unknown }).name) : '';
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  // fetch fails with a TypeError when it gets no answer; anything else is not the network's doing.
  if (!timedOut && name !== 'TypeError') return error;
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  const detail = `${String((error as { message?: unknown }).message)}${typeof code === 'string' ? ` (${code})` : ''}`;
  return new SvcNetworkError(timedOut ? 'The API did not answer in time.' : `Could not reach the API: ${detail}`, {
    cause: error,
    timedOut,
  });
}

export function createTransport(options: TransportOptions) {
  return {
    /** The final response (any status): a retryable one once the retries are spent. */
    async send(makeRequest: (signal: AbortSignal) => Request, send: SendOptions): Promise<Response> {
      const started = Date.now();
      const policy = send.replayable === false ? { ...options.retry, maxAttempts: 1 } : options.retry;
      for (let attempt = 1; ; attempt += 1) {
        let response: Response;
        try {
          response = await options.fetch(makeRequest(attemptSignal(options.timeoutMs, send.signal)));
        } catch (error) {
          if (send.signal?.aborted) throw send.signal.reason;
          const delay = nextRetryDelay(
            { kind: 'network', unsent: unsent(error) },
            {
              attempt,
              elapsedMs: Date.now() - started,
              repeatable: send.repeatable,
              policy,
              nowMs: Date.now(),
              random: Math.random(),
            },
          );
          if (delay === undefined) throw networkError(error, send.signal);
          await sleep(delay, send.signal);
          continue;
        }
        if (response.ok) return response;
        const delay = nextRetryDelay(
          { kind: 'response', status: response.status, headers: response.headers },
          {
            attempt,
            elapsedMs: Date.now() - started,
            repeatable: send.repeatable,
            policy,
            nowMs: Date.now(),
            random: Math.random(),
          },
        );
        if (delay === undefined) return response;
        // The answer is dropped: release its connection before waiting.
        await response.body?.cancel().catch(() => undefined);
        await sleep(delay, send.signal);
      }
    },
  };
}

export type Transport = ReturnType<typeof createTransport>;

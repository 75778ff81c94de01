import { newId, type PayloadFormat } from '@svc/contracts';
import type { Logger } from '@svc/logger';
import type { ClaimedDelivery, DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';
import type { AttemptRecorder } from './attempt-recorder.ts';
import type { Release } from './endpoint-gate.ts';
import type { HttpSender, SendResult } from './http-sender.ts';
import { nextRetryDelayMs, parseRetryAfter } from './retry-schedule.ts';
import type { SecretBox } from './secrets.ts';
import { signatureHeaders } from './signing.ts';

export interface AttemptDeliveryDeps {
  deliveries: DeliveriesRepository;
  recorder: AttemptRecorder;
  sender: HttpSender;
  secrets: SecretBox;
  commands: AttemptCommands;
  logger: Logger;
  schedule: readonly number[];
  jitter: number;
  timeoutMs: number;
  autoPauseAfterMs: number;
  onAttempt?: (outcome: 'succeeded' | 'retrying' | 'failed') => void;
}

export interface AttemptOptions {
  evenIfPaused?: boolean;
  /**
   * A place in the endpoint's lane (EndpointGate): awaited before the POST and released as soon as
   * the response is in, so recording (batched) does not hold the endpoint's concurrency.
   */
  slot?: Promise<Release>;
  /** The receiver's budget when shorter than a delivery's (test sends). */
  timeoutMs?: number;
}

export interface AttemptOutcome {
  attemptId: string;
  result: SendResult;
  status: 'pending' | 'succeeded' | 'failed';
}

/**
 * One attempt of one delivery: claim the row (it must be due and pending), sign, POST, then record
 * the attempt, the delivery's next state and the endpoint's failure clock (one statement, shared with
 * the other attempts finishing meanwhile), and only then send the next attempt's command (a crash in
 * between leaves an overdue row for the sweeper).
 */
export class DeliveryAttempts {
  constructor(private readonly deps: AttemptDeliveryDeps) {}

  /**
   * How long a claimed delivery is left alone: covers waiting for a slot of the endpoint's lane (at
   * most one timeout) and the attempt itself (at most another), with room to spare.
   */
  leaseMs(): number {
    return this.deps.timeoutMs + 30_000;
  }

  /** Undefined when there was nothing to attempt (not due, already done, or a duplicate command). */
  async run(deliveryId: string, options: AttemptOptions = {}): Promise<AttemptOutcome | undefined> {
    let claimed: ClaimedDelivery | null;
    try {
      claimed = await this.deps.deliveries.claim(
        deliveryId,
        this.leaseMs(),
        this.deps.commands.earlyToleranceMs() + 500,
      );
    } catch (error) {
      releaseWhenGranted(options.slot);
      throw error;
    }
    if (claimed === null) {
      releaseWhenGranted(options.slot);
      return undefined;
    }
    return this.attempt(claimed, options);
  }

  /** One attempt of a delivery this process holds (claimed, or inserted already leased by the fan-out). */
  async attempt(claimed: ClaimedDelivery, options: AttemptOptions = {}): Promise<AttemptOutcome | undefined> {
    const { deliveries, commands } = this.deps;
    if (claimed.endpoint_status !== 'active' && options.evenIfPaused !== true) {
      releaseWhenGranted(options.slot);
      // Paused and disabled endpoints are sent nothing; the delivery stays listed and replayable.
      await deliveries.abandon(claimed.id);
      this.deps.onAttempt?.('failed');
      return undefined;
    }
    const release = await options.slot;
    let result: SendResult;
    try {
      result = await this.send(claimed, options.timeoutMs);
    } finally {
      release?.();
    }
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const attemptsMade = claimed.attempt_count + 1;
    const retryAfterMs =
      result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter) : undefined;
    const delayMs =
      succeeded || gone || claimed.manual
        ? undefined
        : nextRetryDelayMs(this.deps.schedule, attemptsMade, { jitter: this.deps.jitter, retryAfterMs });
    const status = succeeded ? 'succeeded' : delayMs === undefined ? 'failed' : 'pending';
    const nextAttemptAt = delayMs === undefined ? null : new Date(Date.now() + delayMs);
    const attemptId = newId();
    await this.deps.recorder.record({
      attemptId,
      deliveryId: claimed.id,
      endpointId: claimed.endpoint_id,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error ?? (succeeded ? null : `The receiver answered ${result.statusCode ?? 'nothing'}.`),
      excerpt: result.excerpt,
      status,
      nextAttemptAt,
      succeeded,
      gone,
      autoPauseAfterMs: this.deps.autoPauseAfterMs,
    });
    this.deps.onAttempt?.(status === 'pending' ? 'retrying' : status);
    if (nextAttemptAt !== null)
      await commands.at({ id: claimed.id, endpointId: claimed.endpoint_id, orgId: claimed.org_id }, nextAttemptAt);
    return { attemptId, result, status };
  }

  private async send(claimed: ClaimedDelivery, timeoutMs: number | undefined): Promise<SendResult> {
    let secrets: string[];
    try {
      secrets = [
        this.deps.secrets.open(claimed.org_id, claimed.endpoint_id, 'current', claimed.secret_cipher),
        ...claimed.previous_secret_ciphers.map((cipher) =>
          this.deps.secrets.open(claimed.org_id, claimed.endpoint_id, 'previous', cipher),
        ),
      ];
    } catch (error) {
      // A vault key missing from VAULT_KEYS: an operator problem, recorded on the attempt (never the secret).
      this.deps.logger.error(
        { err: error, endpoint_id: claimed.endpoint_id },
        'cannot decrypt a webhook signing secret',
      );
      return {
        statusCode: null,
        durationMs: 0,
        error: 'The signing secret could not be decrypted.',
        excerpt: null,
        retryAfter: undefined,
      };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const format = claimed.payload_format as PayloadFormat;
    const headers = signatureHeaders(format, secrets, timestamp, claimed.body);
    if (format === 'envelope') {
      headers['X-Svc-Event'] = claimed.event_type;
      headers['X-Svc-Delivery'] = claimed.id;
    }
    return this.deps.sender.send(claimed.url, headers, claimed.body, timeoutMs === undefined ? {} : { timeoutMs });
  }
}

/** Gives a lane place back without using it (once it is granted: it may still be waiting its turn). */
function releaseWhenGranted(slot: Promise<Release> | undefined): void {
  void slot?.then((release) => release());
}

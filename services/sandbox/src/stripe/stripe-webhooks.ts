import { createHmac } from 'node:crypto';
import { eventJson, type EventRecord } from './stripe-state.ts';

/**
 * `Stripe-Signature: t=<unix seconds>,v1=<hex>`: the HMAC-SHA256, keyed with the endpoint's whole
 * signing secret (`whsec_...`), of `<t>.<raw body>` (Stripe's docs, "Verify webhook signatures
 * manually"; stripe-node's `webhooks.generateTestHeaderString` computes the same).
 */
export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export interface WebhookTarget {
  url: string;
  secret: string;
  /** Delays before each redelivery after a failed attempt; when they run out the event stays undelivered. */
  retryDelaysMs: readonly number[];
  /** How long one attempt waits for the endpoint's answer. */
  timeoutMs: number;
  now: () => number;
}

/**
 * Sends events to the one configured webhook endpoint as Stripe does: a POST of the event's JSON,
 * signed, each attempt signed afresh with its own timestamp; any answer other than 2xx (or none) is
 * retried after the next delay. First attempts go out in the order the events happened; retries run
 * on their own timers. `reset` drops every pending attempt.
 */
export class WebhookSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  private abort = new AbortController();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly target: WebhookTarget) {}

  send(event: EventRecord): void {
    const signal = this.abort.signal;
    this.queue = this.queue.then(() => this.attempt(event, 0, signal));
  }

  reset(): void {
    this.abort.abort();
    this.abort = new AbortController();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async attempt(event: EventRecord, index: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const payload = JSON.stringify(eventJson(event), null, 2);
    const timestamp = Math.floor(this.target.now() / 1000);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(this.target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signatureHeader(payload, this.target.secret, timestamp),
        },
        body: payload,
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.target.timeoutMs)]),
      });
      status = response.status;
      await response.arrayBuffer();
    } catch (failure) {
      error = (failure as Error).message;
    }
    if (signal.aborted) return;
    event.deliveries.push({ attempt: index + 1, at: new Date(this.target.now()).toISOString(), status, error });
    if (status !== null && status >= 200 && status < 300) {
      event.delivered = true;
      return;
    }
    const delay = this.target.retryDelaysMs[index];
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(event, index + 1, signal);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}

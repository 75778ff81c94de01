export type Release = () => void;

export interface NetworkReadGateOptions {
  /** Network calls in flight at once in this process. */
  concurrency: number;
  /** Network calls started per second in this process, on average (bursts up to one second's worth); 0: no rate. */
  perSecond: number;
}

interface Waiter {
  grant: (release: Release | undefined) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The process-wide limit on analytics network calls, shared by list reads and the background: a
 * concurrency limit and a token bucket, first come first served. Hand-written rather than a
 * scheduler library because a waiting call must be dropped when its request's reply budget ends
 * (`signal`), so that it is never started late.
 */
export class NetworkReadGate {
  private active = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: NetworkReadGateOptions) {
    this.tokens = Math.max(1, options.perSecond);
  }

  /** A release to call when the network call ends; undefined when `signal` aborted before a turn came. */
  acquire(signal?: AbortSignal): Promise<Release | undefined> {
    if (signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { grant: resolve, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve(undefined);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** Calls waiting for a turn (for tests and logs). */
  get waiting(): number {
    return this.waiters.length;
  }

  private refill(): void {
    const { perSecond } = this.options;
    if (perSecond <= 0) return;
    const now = Date.now();
    this.tokens = Math.min(perSecond, this.tokens + ((now - this.refilledAt) * perSecond) / 1000);
    this.refilledAt = now;
  }

  private pump(): void {
    this.refill();
    const rated = this.options.perSecond > 0;
    while (this.waiters.length > 0 && this.active < this.options.concurrency && (!rated || this.tokens >= 1)) {
      const waiter = this.waiters.shift()!;
      if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      this.active += 1;
      if (rated) this.tokens -= 1;
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.active -= 1;
        this.pump();
      });
    }
    if (rated && this.waiters.length > 0 && this.active < this.options.concurrency && this.timer === undefined) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.pump();
        },
        Math.ceil(((1 - this.tokens) * 1000) / this.options.perSecond),
      );
      this.timer.unref();
    }
  }
}

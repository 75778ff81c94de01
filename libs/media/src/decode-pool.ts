import { AppError } from '@svc/errors';

export interface DecodePoolOptions {
  /** Decodes and probes running at once in this process. */
  concurrency: number;
  /** Estimated decode memory (bytes) running at once; a task above it alone is refused. */
  memoryBytes: number;
  /** Tasks waiting for a slot; past it a task is refused at once. */
  maxQueue: number;
  /** How long a task may run before its signal aborts it. */
  timeoutMs: number;
}

/** Seconds a client is told to wait when every decoder is busy. */
const BUSY_RETRY_AFTER_S = 5;

interface Waiting {
  bytes: number;
  start: () => void;
}

/**
 * Runs decodes and probes a few at a time, within a memory budget, each under a deadline. A task's
 * slot and memory are held until the task has really ended (a timed-out task is aborted through its
 * signal and released when it stops), so the bound is on work running, not on answers pending.
 * Waiting tasks start in arrival order; a full queue is a 503 with Retry-After.
 */
export class DecodePool {
  private running = 0;
  private bytesInUse = 0;
  private readonly waiting: Waiting[] = [];

  constructor(readonly options: DecodePoolOptions) {}

  get stats() {
    return { running: this.running, waiting: this.waiting.length, bytesInUse: this.bytesInUse };
  }

  async run<T>(bytes: number, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (bytes > this.options.memoryBytes)
      throw new RangeError(`a decode of ${bytes} bytes cannot fit the pool's ${this.options.memoryBytes} bytes`);
    if (this.waiting.length > 0 || !this.fits(bytes)) {
      if (this.waiting.length >= this.options.maxQueue) {
        throw new AppError(
          'service_unavailable',
          `Every media decoder of this server is busy; retry in ${BUSY_RETRY_AFTER_S} seconds.`,
          {
            retryable: true,
            headers: { 'Retry-After': String(BUSY_RETRY_AFTER_S) },
            details: [
              {
                message: 'every decoder busy and the queue full',
                rule: 'decoders_busy',
                retry_after_seconds: BUSY_RETRY_AFTER_S,
              },
            ],
          },
        );
      }
      await new Promise<void>((start) => this.waiting.push({ bytes, start }));
    } else {
      this.take(bytes);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DecodeTimeout(this.options.timeoutMs)), this.options.timeoutMs);
    try {
      return await task(controller.signal);
    } finally {
      clearTimeout(timer);
      this.running -= 1;
      this.bytesInUse -= bytes;
      this.startWaiting();
    }
  }

  private fits(bytes: number): boolean {
    return this.running < this.options.concurrency && this.bytesInUse + bytes <= this.options.memoryBytes;
  }

  private take(bytes: number): void {
    this.running += 1;
    this.bytesInUse += bytes;
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.take(next.bytes);
      next.start();
    }
  }
}

export class DecodeTimeout extends Error {
  override name = 'DecodeTimeout';
  constructor(readonly timeoutMs: number) {
    super(`took longer than ${timeoutMs} ms`);
  }
}

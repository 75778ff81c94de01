import { AppError } from '@svc/errors';

export interface ConcurrencyLimits {
  /** Held at once in this process, whoever holds them. */
  total: number;
  /** Held at once by one key (an organization, a client address) in this process. */
  perKey: number;
  /** What a refused caller is told to wait (Retry-After). */
  retryAfterSeconds: number;
  /** Names the work and the key in the 429 ("media uploads", "the organization"). */
  work: string;
  keyName: string;
  /** The detail's `rule`. */
  rule: string;
}

export type ReleaseSlot = () => void;

/**
 * A hard bound on concurrent work of one kind in one process, overall and per key. `acquire` refuses
 * a caller past either bound at once (429 with Retry-After): for a request with a body, a queue
 * would keep its socket and body open, which is the resource being protected. `acquireWithin` waits
 * a bounded time in line instead, for callers that hold nothing while they wait.
 */
export class ConcurrencySlots {
  private running = 0;
  private readonly byKey = new Map<string, number>();
  private readonly waiting: { key: string; grant: (release: ReleaseSlot) => void }[] = [];

  constructor(private readonly limits: ConcurrencyLimits) {}

  /** Takes a slot for `key` or throws 429; the returned function gives it back (once). */
  acquire(key: string): ReleaseSlot {
    const refused = this.refusalFor(key);
    if (refused !== undefined) throw refused;
    return this.take(key);
  }

  /** Takes a slot for `key`, waiting up to `waitMs` in line for one (429 after that). */
  acquireWithin(key: string, waitMs: number): Promise<ReleaseSlot> {
    const refused = this.refusalFor(key);
    if (refused === undefined) return Promise.resolve(this.take(key));
    if (waitMs <= 0) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      const waiter = {
        key,
        grant: (release: ReleaseSlot) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(this.refusalFor(key) ?? refused);
      }, waitMs);
      this.waiting.push(waiter);
    });
  }

  /** Runs `work` holding a slot, given back however it ends. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const release = this.acquire(key);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private refusalFor(key: string): AppError | undefined {
    const held = this.byKey.get(key) ?? 0;
    if (held >= this.limits.perKey)
      return this.refusal(`${this.limits.keyName} already has ${held} ${this.limits.work} running`);
    if (this.running >= this.limits.total)
      return this.refusal(`The service is running as many ${this.limits.work} as it takes`);
    return undefined;
  }

  private take(key: string): ReleaseSlot {
    this.running += 1;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      const left = (this.byKey.get(key) ?? 1) - 1;
      if (left === 0) this.byKey.delete(key);
      else this.byKey.set(key, left);
      this.serveWaiting();
    };
  }

  /** Hands freed slots to the waiters first in line that may take them. */
  private serveWaiting(): void {
    for (let index = 0; index < this.waiting.length;) {
      const waiter = this.waiting[index]!;
      if (this.refusalFor(waiter.key) !== undefined) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      waiter.grant(this.take(waiter.key));
    }
  }

  private refusal(reason: string): AppError {
    const seconds = this.limits.retryAfterSeconds;
    return new AppError('rate_limited', `${reason}; retry in ${seconds} s.`, {
      retryable: true,
      headers: { 'Retry-After': String(seconds) },
      details: [{ message: reason, rule: this.limits.rule, retry_after_seconds: seconds }],
    });
  }
}

/**
 * The ingest bound (uploads, imports, verifications, accept-time imports): each ingest spools up to
 * its type's limit to MEDIA_TMP_DIR, so a process's temp space holds at most `total` x the largest
 * limit, and one organization takes at most `perKey` of it.
 */
export const ingestSlots = (total: number, perOrg: number) =>
  new ConcurrencySlots({
    total,
    perKey: perOrg,
    retryAfterSeconds: 5,
    work: 'media uploads, imports or verifications',
    keyName: 'The organization',
    rule: 'media_ingest_concurrency',
  });

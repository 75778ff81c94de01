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
 * A hard bound on concurrent work of one kind in one process, overall and per key. A caller past
 * either bound is refused at once (429 with Retry-After) rather than queued: a queue would keep its
 * request's socket and body open, which is the resource being protected.
 */
export class ConcurrencySlots {
  private running = 0;
  private readonly byKey = new Map<string, number>();

  constructor(private readonly limits: ConcurrencyLimits) {}

  /** Takes a slot for `key` or throws 429; the returned function gives it back (once). */
  acquire(key: string): ReleaseSlot {
    const held = this.byKey.get(key) ?? 0;
    if (held >= this.limits.perKey) throw this.refusal(`${this.limits.keyName} already has ${held} ${this.limits.work} running`);
    if (this.running >= this.limits.total) throw this.refusal(`The service is running as many ${this.limits.work} as it takes`);
    this.running += 1;
    this.byKey.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      const left = (this.byKey.get(key) ?? 1) - 1;
      if (left === 0) this.byKey.delete(key);
      else this.byKey.set(key, left);
    };
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
  new ConcurrencySlots({ total, perKey: perOrg, retryAfterSeconds: 5, work: 'media uploads, imports or verifications', keyName: 'The organization', rule: 'media_ingest_concurrency' });

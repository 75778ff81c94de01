import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';

interface Waiter {
  job: NewJobRow;
  resolve: (outcome: StoreOutcome) => void;
  reject: (error: unknown) => void;
}

export interface AcceptBatcherOptions {
  /** Jobs written by one statement at most. */
  maxSize: number;
  /** Stores the jobs in one statement, one outcome per job in order (AcceptRepository.store). */
  store: (jobs: readonly NewJobRow[]) => Promise<StoreOutcome[]>;
}

/**
 * Group commit of accepts: the jobs validated while a batch is being written form the next batch, so
 * an idle publisher writes a lone job at once (no timer adds latency) and a busy one writes many per
 * statement, commit and WAL flush, and takes each organization's usage row once per batch instead of
 * once per job. One batch at a time per process: the batches of one organization would queue on its
 * usage row anyway.
 *
 * A batch that fails as a whole (a job id already taken by a racing retry of the same idempotent
 * request, a broken row) is written again one job per statement, so one job's failure fails only its
 * own request; a 402 is an outcome of its own job, never an error of the batch.
 */
export class AcceptBatcher {
  private readonly waiting: Waiter[] = [];
  private running = false;
  private scheduled = false;

  constructor(private readonly options: AcceptBatcherOptions) {}

  add(job: NewJobRow): Promise<StoreOutcome> {
    return new Promise<StoreOutcome>((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // The next turn of the event loop: the requests that arrived in one socket read travel together.
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, this.options.maxSize);
    try {
      await this.write(batch);
    } finally {
      this.running = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }

  private async write(batch: Waiter[]): Promise<void> {
    let outcomes: StoreOutcome[];
    try {
      outcomes = await this.options.store(batch.map((waiter) => waiter.job));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One after the other, in arrival order: at the limit, the units left go to the earliest jobs, as in a batch.
      for (const waiter of batch) await this.write([waiter]);
      return;
    }
    batch.forEach((waiter, index) => waiter.resolve(outcomes[index]!));
  }
}

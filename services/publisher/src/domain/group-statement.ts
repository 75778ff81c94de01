export interface GroupStatementOptions<I, O> {
  /** Items sent in one statement at most. */
  maxSize: number;
  /** Runs one statement for the items, and gives one result per item, in order. */
  run: (items: readonly I[]) => Promise<O[]>;
}

interface Waiter<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the items that arrive while a statement runs travel together in the next one, so an
 * idle process sends a lone item at once (no timer adds latency) and a busy one sends many per
 * round trip, socket write, plan and commit (docs/performance.md: the accept path; the delivery's
 * read and outcome). One statement at a time per group: under load the batch grows instead of the
 * number of statements.
 *
 * A statement that fails as a whole (a job id already taken by a racing retry of the same
 * idempotent request, a deadlock, a broken row) is run again one item per statement, in arrival
 * order, so one item's failure fails only its own caller. `run` must therefore be safe to repeat
 * for the items of a failed statement: one statement commits all of its items or none.
 */
export class GroupStatement<I, O> {
  private readonly waiting: Waiter<I, O>[] = [];
  private running = false;
  private scheduled = false;

  constructor(private readonly options: GroupStatementOptions<I, O>) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // The next turn of the event loop: the items that arrived in one socket read travel together.
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
      await this.send(batch);
    } finally {
      this.running = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }

  private async send(batch: Waiter<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.options.run(batch.map((waiter) => waiter.item));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const waiter of batch) await this.send([waiter]);
      return;
    }
    batch.forEach((waiter, index) => waiter.resolve(results[index]!));
  }
}

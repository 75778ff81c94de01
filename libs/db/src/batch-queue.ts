interface Waiter<In, Out> {
  item: In;
  resolve: (out: Out) => void;
  reject: (error: unknown) => void;
}

export interface BatchQueueOptions {
  /** Items in one batch at most (one statement's worth). */
  maxSize: number;
  /** Batches running at once; what arrives meanwhile waits and forms the next batch. */
  maxInFlight: number;
  /**
   * A batch whose run throws is run again one item per batch, in arrival order, so one item's
   * failure fails only its own caller (a job id taken by a racing retry, a deadlock). Only for a
   * `run` that commits all of its items or none, so repeating them is safe. Default: every item of
   * the failed batch is rejected with the error.
   */
  splitOnFailure?: boolean;
  /**
   * How long a batch smaller than `maxSize` waits for more items before it starts (default 0: on
   * the next turn). For work whose items may wait a little, where each batch costs round trips and a
   * commit whatever it holds: a consumer whose items trickle in one or two per transaction then writes
   * many per transaction. A batch that reaches `maxSize` starts at once, so at full load nothing waits.
   */
  lingerMs?: number;
}

/**
 * Group commit for a hot statement: items added while batches are running form the next batch, so an
 * idle dispatcher writes a lone item at once (no timer adds latency, unless `lingerMs` asks for one)
 * and a busy one writes many per round trip, plan and commit. The statements per delivery are what
 * bound the webhook dispatcher and the publisher's deliveries and accepts (docs/performance.md,
 * "Webhooks", "Accept path", "Group commit on the delivery path"). A batch starts on the next turn of the event loop, so items added
 * together (the messages of one socket read) travel together.
 *
 * `run` answers one result per item, in order; when it throws, every item of that batch is rejected
 * with the error (each caller then fails on its own, e.g. its message is retried), or, with
 * `splitOnFailure`, each item is run again alone.
 */
export class BatchQueue<In, Out> {
  private readonly waiting: Waiter<In, Out>[] = [];
  private running = 0;
  private scheduled = false;
  /** The wait of a batch still smaller than maxSize (`lingerMs`). */
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly options: BatchQueueOptions,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running >= this.options.maxInFlight) return;
    const full = this.waiting.length >= this.options.maxSize;
    if (this.scheduled) {
      // A lingering batch that filled up starts now.
      if (full && this.lingering !== undefined) {
        clearTimeout(this.lingering);
        this.lingering = undefined;
        setImmediate(() => this.start());
      }
      return;
    }
    this.scheduled = true;
    const lingerMs = this.options.lingerMs ?? 0;
    if (lingerMs > 0 && !full) this.lingering = setTimeout(() => this.start(), lingerMs);
    else setImmediate(() => this.start());
  }

  private start(): void {
    this.scheduled = false;
    this.lingering = undefined;
    this.pump();
  }

  private pump(): void {
    while (this.running < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxSize);
      this.running += 1;
      void this.execute(batch).finally(() => {
        this.running -= 1;
        if (this.waiting.length > 0) this.schedule();
      });
    }
  }

  private async execute(batch: Waiter<In, Out>[]): Promise<void> {
    let results: Out[];
    try {
      results = await this.run(batch.map((waiter) => waiter.item));
      if (results.length !== batch.length)
        throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
    } catch (error) {
      if (this.options.splitOnFailure === true && batch.length > 1) {
        for (const waiter of batch) await this.execute([waiter]);
        return;
      }
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    batch.forEach((waiter, index) => waiter.resolve(results[index]!));
  }
}

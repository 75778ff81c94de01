/** Requests in one batch message at most (the contract's `maxItems`). */
export const MAX_BATCH = 64;

/**
 * Gathers what is added under one key during a turn of the event loop and hands it over in one
 * piece at the end of that turn (`setImmediate`: after every I/O callback of the turn and what each
 * started). Nothing waits longer than the turn it was added in. The RPC client gathers requests
 * with it, the RPC server the answers of a batch.
 */
export class TurnBatches<T> {
  private readonly open = new Map<string, T[]>();

  constructor(private readonly flush: (items: T[]) => void) {}

  add(key: string, item: T): void {
    const items = this.open.get(key);
    if (items) {
      items.push(item);
      return;
    }
    this.open.set(key, [item]);
    setImmediate(() => this.flushKey(key));
  }

  /** Hands over everything gathered so far now, without waiting for the end of the turn. */
  drain(): void {
    for (const key of [...this.open.keys()]) this.flushKey(key);
  }

  private flushKey(key: string): void {
    const gathered = this.open.get(key);
    if (gathered === undefined) return;
    this.open.delete(key);
    this.flush(gathered);
  }
}

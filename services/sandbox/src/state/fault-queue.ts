import { type Fault, type FaultKind, type NetworkName } from './types.ts';

interface Pending<K extends string> {
  fault: K;
  remaining: number;
  retryAfterSeconds: number;
}

/** Faults armed by the control API; each call to a network consumes one from its queue. */
export class FaultQueue<K extends string = FaultKind> {
  private readonly queues = new Map<NetworkName, Pending<K>[]>();

  push(network: NetworkName, fault: K, count: number, retryAfterSeconds: number): void {
    const queue = this.queues.get(network) ?? [];
    queue.push({ fault, remaining: count, retryAfterSeconds });
    this.queues.set(network, queue);
  }

  /** Takes the next fault of the first listed network that has one. */
  take(networks: readonly NetworkName[]): (Omit<Fault, 'fault'> & { fault: K }) | undefined {
    for (const network of networks) {
      const queue = this.queues.get(network);
      const head = queue?.[0];
      if (!queue || !head) continue;
      head.remaining -= 1;
      if (head.remaining <= 0) queue.shift();
      return { network, fault: head.fault, retryAfterSeconds: head.retryAfterSeconds };
    }
    return undefined;
  }

  pending(): { network: NetworkName; fault: K; remaining: number }[] {
    return [...this.queues.entries()].flatMap(([network, queue]) =>
      queue.map((item) => ({ network, fault: item.fault, remaining: item.remaining })),
    );
  }

  clear(): void {
    this.queues.clear();
  }
}

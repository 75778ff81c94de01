import type { AttemptRecord, DeliveriesRepository } from '../data/deliveries.repository.ts';
import { BatchQueue } from '@svc/db';

/**
 * Records attempts in batches: every attempt finished while the previous batch was being written goes
 * into one statement (DeliveriesRepository.recordMany). One batch at a time, so two batches of this
 * process never wait on each other's endpoint rows; at most `maxBatch` attempts per statement.
 */
export class AttemptRecorder {
  private readonly queue: BatchQueue<AttemptRecord, string | null>;

  /** `onAutoPaused` is told once per endpoint a batch paused (the auto-pause metric and alert). */
  constructor(deliveries: DeliveriesRepository, options: { maxBatch: number; onAutoPaused?: () => void }) {
    this.queue = new BatchQueue(
      async (attempts) => {
        const statuses = await deliveries.recordMany(attempts);
        // Every attempt of a paused endpoint answers its status; the endpoint counts once.
        const paused = new Set(attempts.filter((_, i) => statuses[i] === 'auto_paused').map((a) => a.endpointId));
        for (let n = 0; n < paused.size; n += 1) options.onAutoPaused?.();
        return statuses;
      },
      { maxSize: options.maxBatch, maxInFlight: 1 },
    );
  }

  /** Resolves once the attempt is stored, with its endpoint's status when the batch changed it. */
  record(attempt: AttemptRecord): Promise<string | null> {
    return this.queue.add(attempt);
  }
}

import type { AttemptRecord, DeliveriesRepository } from '../data/deliveries.repository.ts';
import { BatchQueue } from '@svc/db';

/**
 * Records attempts in batches: every attempt finished while the previous batch was being written goes
 * into one statement (DeliveriesRepository.recordMany). One batch at a time, so two batches of this
 * process never wait on each other's endpoint rows; at most `maxBatch` attempts per statement.
 */
export class AttemptRecorder {
  private readonly queue: BatchQueue<AttemptRecord, string | null>;

  constructor(deliveries: DeliveriesRepository, options: { maxBatch: number }) {
    this.queue = new BatchQueue((attempts) => deliveries.recordMany(attempts), {
      maxSize: options.maxBatch,
      maxInFlight: 1,
    });
  }

  /** Resolves once the attempt is stored, with its endpoint's status when the batch changed it. */
  record(attempt: AttemptRecord): Promise<string | null> {
    return this.queue.add(attempt);
  }
}

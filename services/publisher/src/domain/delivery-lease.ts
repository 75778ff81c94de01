import type { Logger } from '@svc/logger';
import type { RawSql } from '@svc/db';
import { renewDeliveryLease } from '../data/delivery-leases.ts';

/**
 * Keeps an attempt's lease alive while its worker runs: renewed every third of the lease, so a
 * lease runs out only when the worker died (SIGKILL, OOM, a lost node) and another worker can take
 * the delivery over in seconds instead of after the longest possible upload. A renewal that fails
 * (database blip) is tried again at the next beat; two missed beats still leave a third of the lease.
 */
export function holdLease(db: RawSql, logger: Logger, deliveryId: string, leaseMs: number): { release: () => void } {
  const timer = setInterval(
    () => {
      renewDeliveryLease(db, deliveryId, leaseMs).catch((error: unknown) =>
        logger.warn({ err: error, delivery_id: deliveryId }, 'renewing a delivery lease failed'),
      );
    },
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return { release: () => clearInterval(timer) };
}

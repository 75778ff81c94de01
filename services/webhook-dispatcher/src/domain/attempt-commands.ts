import { webhooksDeliveryAttempt } from '@svc/contracts';
import type { Broker } from '@svc/messaging';

export const DELIVERIES_QUEUE = 'webhook-dispatcher.deliveries';

/**
 * Sends attempt commands: due now through the commands exchange, later through the broker's delay
 * tiers straight back to the deliveries queue (durable quorum queues: a wait survives restarts of
 * every service). Losing one (a crash between commit and publish) only delays the attempt until the
 * sweeper finds the overdue row.
 */
export class AttemptCommands {
  constructor(private readonly broker: Broker) {}

  async now(delivery: { id: string; endpointId: string; orgId: string | null }): Promise<void> {
    await this.broker.publish(
      webhooksDeliveryAttempt,
      { delivery_id: delivery.id, endpoint_id: delivery.endpointId, due_at: new Date().toISOString() },
      { orgId: delivery.orgId, requestId: null },
    );
  }

  async at(delivery: { id: string; endpointId: string; orgId: string | null }, due: Date): Promise<void> {
    const delayMs = due.getTime() - Date.now();
    const payload = { delivery_id: delivery.id, endpoint_id: delivery.endpointId, due_at: due.toISOString() };
    if (delayMs <= 0) {
      await this.broker.publish(webhooksDeliveryAttempt, payload, { orgId: delivery.orgId, requestId: null });
      return;
    }
    await this.broker.publishDelayed(
      webhooksDeliveryAttempt,
      payload,
      { orgId: delivery.orgId, requestId: null },
      { queue: DELIVERIES_QUEUE, delayMs },
    );
  }

  /** Half the shortest tier: a command back this close to its due time is run rather than delayed again. */
  earlyToleranceMs(): number {
    return Math.floor((this.broker.delayTiersMs()[0] ?? 1000) / 2);
  }

  shortestTierMs(): number {
    return this.broker.delayTiersMs()[0] ?? 1000;
  }
}

import {
  createEnvelope,
  DELIVERY_RUN_MAX_DELIVERIES,
  publisherDeliveryRun,
  publisherDeliveryRunBatch,
  type Envelope,
  type EnvelopeContext,
} from '@svc/contracts';
import type { WokenDelivery } from '../data/org-waiting.ts';

/**
 * The commands that run a queued job's deliveries: one `publisher.delivery_run.v2` per
 * DELIVERY_RUN_MAX_DELIVERIES of them, in the job's order. One message a delivery cost the outbox,
 * the relay and the broker each a message's work per target (docs/performance.md, "Deliver
 * path"). `batches` false (DELIVERY_RUN_BATCHES): one v1 per delivery, which a publisher
 * of an earlier release understands.
 */
export function deliveryRunCommands(
  jobId: string,
  deliveryIds: readonly string[],
  context: EnvelopeContext,
  batches = true,
): Envelope[] {
  if (!batches)
    return deliveryIds.map((id) => createEnvelope(publisherDeliveryRun, { job_id: jobId, delivery_id: id }, context));
  const commands: Envelope[] = [];
  for (let start = 0; start < deliveryIds.length; start += DELIVERY_RUN_MAX_DELIVERIES) {
    commands.push(
      createEnvelope(
        publisherDeliveryRunBatch,
        { job_id: jobId, delivery_ids: deliveryIds.slice(start, start + DELIVERY_RUN_MAX_DELIVERIES) },
        context,
      ),
    );
  }
  return commands;
}

/**
 * Hands deliveries woken in a process that does not deliver (PUBLISHER_ROLES=accept) to the ones
 * that do: their commands, straight to the broker rather than through the outbox, a job's in one
 * message as at accept. A command lost here loses no delivery: the delivery stays marked woken until
 * its mark runs out (DELIVERY_LEASE_MS), then the sweeper puts it back in line and wakes it again.
 */
export async function sendWokenDeliveries(
  broker: { publishEnvelope(envelope: Envelope): Promise<void> },
  orgId: string,
  woken: readonly WokenDelivery[],
  batches: boolean,
): Promise<void> {
  const byJob = new Map<string, string[]>();
  for (const { id, jobId } of woken) byJob.set(jobId, [...(byJob.get(jobId) ?? []), id]);
  const commands = [...byJob].flatMap(([jobId, ids]) =>
    deliveryRunCommands(jobId, ids, { orgId, requestId: null }, batches),
  );
  await Promise.all(commands.map((command) => broker.publishEnvelope(command)));
}

import { createEnvelope, DELIVERY_RUN_MAX_DELIVERIES, publisherDeliveryRun, publisherDeliveryRunBatch, type Envelope, type EnvelopeContext } from '@svc/contracts';

/**
 * The commands that run a queued job's deliveries: one `publisher.delivery_run.v2` per
 * DELIVERY_RUN_MAX_DELIVERIES of them, in the job's order. One message a delivery cost the outbox,
 * the relay and the broker each a message's work per target (docs/performance.md, "A job's targets
 * in commands of 10"). `batches` false (DELIVERY_RUN_BATCHES): one v1 per delivery, which a publisher
 * of an earlier release understands.
 */
export function deliveryRunCommands(jobId: string, deliveryIds: readonly string[], context: EnvelopeContext, batches = true): Envelope[] {
  if (!batches) return deliveryIds.map((id) => createEnvelope(publisherDeliveryRun, { job_id: jobId, delivery_id: id }, context));
  const commands: Envelope[] = [];
  for (let start = 0; start < deliveryIds.length; start += DELIVERY_RUN_MAX_DELIVERIES) {
    commands.push(createEnvelope(publisherDeliveryRunBatch, { job_id: jobId, delivery_ids: deliveryIds.slice(start, start + DELIVERY_RUN_MAX_DELIVERIES) }, context));
  }
  return commands;
}

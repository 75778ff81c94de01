import { webhooksDeliveryAttempt, type Handlers } from '@svc/contracts';
import type { AttemptCommands } from '../domain/attempt-commands.ts';
import type { DeliveryAttempts } from '../domain/attempt-delivery.ts';
import type { EndpointGate } from '../domain/endpoint-gate.ts';
import { releasingBoth, type OrgGate } from '../domain/org-gate.ts';

export const attemptCommands = [webhooksDeliveryAttempt] as const;

/**
 * A command back early from a delay tier is delayed again by the remainder; one for an organization
 * or an endpoint already at its concurrency limit goes back for the shortest tier (fairness: it does
 * not hold a worker while it waits); otherwise the attempt runs, holding both places until the
 * response is in.
 */
export function attemptHandlers(deps: {
  attempts: DeliveryAttempts;
  commands: AttemptCommands;
  gate: EndpointGate;
  orgGate: OrgGate;
}): Handlers<typeof attemptCommands> {
  return {
    'webhooks.delivery_attempt.v1': async (envelope) => {
      const { delivery_id, endpoint_id, due_at } = envelope.payload;
      const target = { id: delivery_id, endpointId: endpoint_id, orgId: envelope.org_id };
      const due = new Date(due_at);
      if (due.getTime() - Date.now() > deps.commands.earlyToleranceMs()) {
        await deps.commands.at(target, due);
        return;
      }
      const later = () => deps.commands.at(target, new Date(Date.now() + deps.commands.shortestTierMs()));
      // Every command carries its organization; one without (an older sweeper's) counts as its endpoint's own.
      const orgKey = envelope.org_id ?? `endpoint:${endpoint_id}`;
      await deps.orgGate.prepare([orgKey]);
      const org = deps.orgGate.tryEnter(orgKey);
      if (org === undefined) return later();
      const entry = deps.gate.enter(endpoint_id);
      if (entry === undefined) {
        org();
        return later();
      }
      await deps.attempts.run(delivery_id, { slot: entry.then((release) => releasingBoth(release, org)) });
    },
  };
}

import { newId, type Envelope, type PayloadFormat } from '@svc/contracts';
import type { ClaimedDelivery, DeliveriesRepository, NewDelivery } from '../data/deliveries.repository.ts';
import type { EndpointsRepository, OrgSubscriber } from '../data/endpoints.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';
import type { DeliveryAttempts } from './attempt-delivery.ts';
import { BatchQueue } from '@svc/db';
import type { EndpointGate, Release, SpillOptions } from './endpoint-gate.ts';
import { releasingBoth, type OrgGate } from './org-gate.ts';
import { customerEvent, deliveryBodies, type PostEvent, type RevokedEvent } from './payloads.ts';

export interface FanOutDeps {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  commands: AttemptCommands;
  attempts: DeliveryAttempts;
  gate: EndpointGate;
  orgGate: OrgGate;
  /** How many deliveries per endpoint wait in memory for a lane slot, and how long (EndpointGate). */
  lane: SpillOptions;
  /** Events planned in one batch at most (one subscribers lookup and one insert for all of them). */
  maxBatch: number;
}

type CustomerEnvelope = Envelope<PostEvent | RevokedEvent>;

interface Planned {
  row: NewDelivery;
  endpoint: OrgSubscriber;
  /**
   * A place in the endpoint's lane: the first attempt runs here once it is granted. Undefined (now or
   * once it gives up waiting): the delivery goes through the deliveries queue.
   */
  slot: Promise<Release | undefined> | undefined;
  /** False when the delivery existed already (a redelivered or duplicated event): nothing is sent. */
  inserted: boolean;
}

/**
 * Customer-visible events to every active endpoint of their organization subscribed to them. The
 * deliveries are keyed by (endpoint, event message id [, account]), so a redelivered or duplicated
 * event inserts and sends nothing twice.
 *
 * The events of one prefetch window are planned together (BatchQueue): one subscribers lookup for
 * their organizations and one insert of all their deliveries, instead of two statements per event
 * (docs/performance.md, "Webhooks"). Each event then goes on alone and is acked once its own attempts
 * are recorded; if the planning statement fails, every event of the batch fails and is retried.
 *
 * First attempts run right here when the organization is under its in-flight limit (OrgGate) and the
 * endpoint's lane admits them (a free slot, or a place among its few waiters): the row is inserted
 * already claimed (leased), so no command hop, claim or second read is needed. When either is full (a
 * slow endpoint, or an organization with many), the delivery goes through the deliveries queue like a
 * retry, so a slow endpoint holds at most its lane and backlog of this consumer's prefetch (and, for at
 * most the lane's patience, the extra waiters it admitted while still fast), and one organization at
 * most its in-flight limit. If the
 * process dies before an attempt is recorded, the leased row is re-sent by the sweeper.
 */
export class EventFanOut {
  private readonly planning: BatchQueue<CustomerEnvelope, Planned[] | PlanError>;

  constructor(private readonly deps: FanOutDeps) {
    // Two batches at once: one is being planned while the previous one's statement is in flight.
    this.planning = new BatchQueue((envelopes) => this.plan(envelopes), { maxSize: deps.maxBatch, maxInFlight: 2 });
  }

  /** Answers the number of deliveries this event created. */
  async handle(envelope: CustomerEnvelope): Promise<number> {
    if (envelope.org_id === null) return 0;
    const planned = await this.planning.add(envelope);
    if (planned instanceof PlanError) throw planned.cause;
    await Promise.all(planned.map((entry) => this.first(entry)));
    return planned.filter((entry) => entry.inserted).length;
  }

  private async first({ row, endpoint, slot, inserted }: Planned): Promise<void> {
    if (!inserted) {
      void slot?.then((release) => release?.());
      return;
    }
    const target = { id: row.id, endpointId: row.endpointId, orgId: row.orgId };
    if (slot === undefined) {
      await this.deps.commands.now(target);
      return;
    }
    const release = await slot;
    if (release === undefined) {
      // Gave up waiting (the endpoint slowed down): the row was inserted leased for this process, so
      // it is made due before its command, or the claim would find it not due yet.
      await this.deps.deliveries.makeDue(row.id);
      await this.deps.commands.now(target);
      return;
    }
    await this.deps.attempts.attempt(asClaimed(row, endpoint), { slot: Promise.resolve(release) });
  }

  private async plan(envelopes: readonly CustomerEnvelope[]): Promise<(Planned[] | PlanError)[]> {
    const orgIds = [...new Set(envelopes.flatMap((envelope) => (envelope.org_id === null ? [] : [envelope.org_id])))];
    const byOrg = new Map<string, OrgSubscriber[]>();
    for (const endpoint of await this.deps.endpoints.activeOf(orgIds)) {
      byOrg.set(endpoint.org_id, [...(byOrg.get(endpoint.org_id) ?? []), endpoint]);
    }
    // This process's share of each organization with endpoints (held already, or one statement).
    await this.deps.orgGate.prepare([...byOrg.keys()]);
    const plans = envelopes.map((envelope) => this.planOne(envelope, byOrg.get(envelope.org_id ?? '') ?? []));
    const all = plans.flatMap((plan) => (plan instanceof PlanError ? [] : plan));
    let inserted: Set<string>;
    try {
      inserted = new Set((await this.deps.deliveries.insertMany(all.map((entry) => entry.row))).map((row) => row.id));
    } catch (error) {
      for (const entry of all) void entry.slot?.then((release) => release?.());
      throw error;
    }
    for (const entry of all) entry.inserted = inserted.has(entry.row.id);
    return plans;
  }

  /** One event's deliveries; an event that cannot be planned fails alone, not its whole batch. */
  private planOne(envelope: CustomerEnvelope, endpoints: readonly OrgSubscriber[]): Planned[] | PlanError {
    const orgId = envelope.org_id;
    if (orgId === null) return [];
    let rows: { row: NewDelivery; endpoint: OrgSubscriber }[];
    try {
      const event = customerEvent(envelope);
      rows = endpoints
        .filter((endpoint) => endpoint.events.includes(event.type))
        .flatMap((endpoint) =>
          deliveryBodies(event, envelope.message_id, endpoint.payload_format as PayloadFormat).map((body) => {
            const id = newId();
            const row: NewDelivery = {
              id,
              orgId,
              endpointId: endpoint.id,
              eventKey: body.key,
              eventType: event.type,
              body: body.body(id),
              manual: false,
            };
            return { row, endpoint };
          }),
        );
    } catch (error) {
      return new PlanError(error);
    }
    // Lane places are taken only once nothing can fail before they are handed on.
    return rows.map(({ row, endpoint }) => {
      const slot = this.enter(orgId, endpoint.id);
      if (slot !== undefined) row.leaseMs = this.deps.attempts.leaseMs();
      return { row, endpoint, slot, inserted: false };
    });
  }

  /**
   * A place for a first attempt here: one of the organization's (refused at once when it has its
   * limit in flight) and then one of the endpoint's lane. Undefined, now or later: through the broker.
   */
  private enter(orgId: string, endpointId: string): Promise<Release | undefined> | undefined {
    const org = this.deps.orgGate.tryEnter(orgId);
    if (org === undefined) return undefined;
    const slot = this.deps.gate.enterOrSpill(endpointId, this.deps.lane);
    if (slot === undefined) {
      org();
      return undefined;
    }
    return slot.then((release) => {
      if (release !== undefined) return releasingBoth(release, org);
      org();
      return undefined;
    });
  }
}

class PlanError {
  constructor(readonly cause: unknown) {}
}

function asClaimed(row: NewDelivery, endpoint: OrgSubscriber): ClaimedDelivery {
  return {
    id: row.id,
    org_id: row.orgId,
    event_type: row.eventType,
    body: row.body,
    attempt_count: 0,
    manual: false,
    endpoint_id: endpoint.id,
    url: endpoint.url,
    endpoint_status: endpoint.status,
    payload_format: endpoint.payload_format,
    secret_cipher: endpoint.secret_cipher,
    previous_secret_ciphers: endpoint.previous_secret_ciphers,
  };
}

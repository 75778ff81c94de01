import { randomUUID } from 'node:crypto';
import type { PayloadFormat, WebhookEventType } from '@svc/contracts';
import { AppError, notFound } from '@svc/errors';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import type { DeliveryAttempts } from './attempt-delivery.ts';
import type { EndpointGate, Release } from './endpoint-gate.ts';
import { releasingBoth, type OrgGate } from './org-gate.ts';
import { deliveryBodies, sampleEvent } from './payloads.ts';

export interface TestEndpointDeps {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  attempts: DeliveryAttempts;
  /** The deliveries' per-endpoint lanes: a test takes a slot like any attempt. */
  gate: EndpointGate;
  /** Test sends in flight per organization (their own limit, apart from deliveries'). */
  tests: OrgGate;
  /** The receiver's budget for a test (WEBHOOK_TEST_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a test may wait for a slot of an endpoint that is answering quickly. */
  patienceMs: number;
}

/**
 * `POST /v1/webhooks/{id}/test`: a sample of the endpoint's first subscribed event, signed and sent
 * now through the same guarded client and the endpoint's lane, recorded as a delivery (listed and
 * replayable like any other) with one attempt and no retries. Paused endpoints can be tested too, to
 * check a fix before resuming. It answers 429 with Retry-After when the organization has its limit of
 * tests in flight, or when the endpoint's lane is held by attempts that are not answering.
 */
export async function testEndpoint(deps: TestEndpointDeps, input: { orgId: string; endpointId: string }) {
  const endpoint = await deps.endpoints.find(input.orgId, input.endpointId);
  if (endpoint === null) throw notFound('The webhook endpoint');
  const slot = await place(deps, input.orgId, endpoint.id);
  const type = (endpoint.events[0] ?? 'post.published') as WebhookEventType;
  const eventId = randomUUID();
  const [body] = deliveryBodies(sampleEvent(type, new Date()), eventId, endpoint.payloadFormat as PayloadFormat);
  const id = randomUUID();
  try {
    if (body === undefined) throw new Error('The sample event produced no body.');
    await deps.deliveries.insertMany([
      {
        id,
        orgId: input.orgId,
        endpointId: endpoint.id,
        eventKey: `test:${body.key}`,
        eventType: type,
        body: body.body(id),
        manual: true,
      },
    ]);
  } catch (error) {
    slot();
    throw error;
  }
  const outcome = await deps.attempts.run(id, {
    evenIfPaused: true,
    slot: Promise.resolve(slot),
    timeoutMs: deps.timeoutMs,
  });
  if (outcome === undefined) throw new Error('The test delivery could not be claimed.');
  return {
    id,
    event_type: type,
    status_code: outcome.result.statusCode ?? 0,
    attempts: 1,
    error: outcome.result.error,
  };
}

/** A place among the organization's tests, then a slot of the endpoint's lane; 429 for either refused. */
async function place(deps: TestEndpointDeps, orgId: string, endpointId: string): Promise<Release> {
  const retryAfter = Math.max(1, Math.ceil(deps.timeoutMs / 1000));
  const busy = (message: string) =>
    new AppError('rate_limited', message, {
      headers: { 'Retry-After': String(retryAfter) },
      details: [{ message, retry_after_seconds: retryAfter }],
    });
  const org = deps.tests.tryEnter(orgId);
  if (org === undefined)
    throw busy(`Too many test sends of this organization are in flight; retry in ${retryAfter} s.`);
  // No backlog: a test waits only while the endpoint is answering quickly, and for its patience at most.
  const release = await deps.gate.enterOrSpill(endpointId, { backlog: 0, patienceMs: deps.patienceMs });
  if (release === undefined) {
    org();
    throw busy(`The endpoint has deliveries in flight that are not answered yet; retry in ${retryAfter} s.`);
  }
  return releasingBoth(release, org);
}

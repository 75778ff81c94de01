// The endpoint failure clock of decisions §5 at the SQL level (the recording statement): 410 pauses
// at once; failing with no success past the threshold pauses while failures keep coming; a quiet gap
// longer than the threshold starts a new streak; any success clears it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { DeliveriesRepository } from '../src/data/deliveries.repository.ts';
import { EndpointsRepository } from '../src/data/endpoints.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

const DAY = 24 * 3600_000;
const THRESHOLD = 5 * DAY;
let database: TestDatabase;
let db: PrismaClient;
let endpoints: EndpointsRepository;
let deliveries: DeliveriesRepository;

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'wh_pause', serviceDir: path.resolve(__dirname, '..') });
  db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  endpoints = new EndpointsRepository(db);
  deliveries = new DeliveriesRepository(db);
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

async function endpointWithDelivery(): Promise<{ endpointId: string; deliveryId: string }> {
  const endpointId = randomUUID();
  await endpoints.create({ id: endpointId, orgId: 'org_pause', url: 'https://example.com/hook', events: ['post.published'], payloadFormat: 'envelope', secretCipher: 'v1.k1.x.y.z' });
  const deliveryId = randomUUID();
  await deliveries.insertMany([{ id: deliveryId, orgId: 'org_pause', endpointId, eventKey: randomUUID(), eventType: 'post.published', body: '{}', manual: false }]);
  return { endpointId, deliveryId };
}

const attempt = (ids: { endpointId: string; deliveryId: string }, outcome: { statusCode: number; succeeded?: boolean }) =>
  deliveries.record({
    attemptId: randomUUID(),
    deliveryId: ids.deliveryId,
    endpointId: ids.endpointId,
    statusCode: outcome.statusCode,
    durationMs: 12,
    error: outcome.succeeded === true ? null : 'failed',
    excerpt: null,
    status: outcome.succeeded === true ? 'succeeded' : 'pending',
    nextAttemptAt: outcome.succeeded === true ? null : new Date(Date.now() + 60_000),
    succeeded: outcome.succeeded === true,
    gone: outcome.statusCode === 410,
    autoPauseAfterMs: THRESHOLD,
  });

const setClock = (endpointId: string, failingSinceAgoMs: number, lastFailureAgoMs: number) =>
  db.webhookEndpoint.update({ where: { id: endpointId }, data: { failingSince: new Date(Date.now() - failingSinceAgoMs), lastFailureAt: new Date(Date.now() - lastFailureAgoMs) } });

const read = (endpointId: string) => db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });

describe('endpoint failure clock', () => {
  it('starts on a failure and pauses once failures kept coming past the threshold', async () => {
    const ids = await endpointWithDelivery();
    expect(await attempt(ids, { statusCode: 500 })).toBe('active');
    expect((await read(ids.endpointId)).failingSince).not.toBeNull();
    await setClock(ids.endpointId, THRESHOLD + DAY, DAY);
    expect(await attempt(ids, { statusCode: 500 })).toBe('auto_paused');
    expect((await read(ids.endpointId)).pausedAt).not.toBeNull();
  });

  it('starts a new streak after a quiet gap longer than the threshold', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, 10 * DAY, 6 * DAY);
    expect(await attempt(ids, { statusCode: 500 })).toBe('active');
    const row = await read(ids.endpointId);
    expect(Date.now() - row.failingSince!.getTime()).toBeLessThan(60_000);
  });

  it('pauses at once on 410 Gone', async () => {
    const ids = await endpointWithDelivery();
    expect(await attempt(ids, { statusCode: 410 })).toBe('auto_paused');
  });

  it('clears the streak on any success', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, THRESHOLD - DAY, 1000);
    await attempt(ids, { statusCode: 204, succeeded: true });
    const row = await read(ids.endpointId);
    expect(row.failingSince).toBeNull();
    expect(row.lastFailureAt).toBeNull();
    expect(row.status).toBe('active');
  });
});

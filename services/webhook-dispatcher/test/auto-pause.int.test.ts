// The endpoint failure clock (docs/api-conventions.md, "Webhooks: retries and auto-pause") at the
// SQL level (the recording statement): 410 pauses at once; failing with no success past the
// threshold pauses while failures keep coming; a quiet gap longer than the threshold starts a new
// streak; any success clears it.
import { randomUUID } from 'node:crypto';
import { type AttemptRecord } from '../src/data/deliveries.repository.ts';
import { AttemptRecorder } from '../src/domain/attempt-recorder.ts';
import { useDispatcherDatabase } from './dispatcher-database.ts';

const DAY = 24 * 3600_000;
const THRESHOLD = 5 * DAY;
const t = useDispatcherDatabase('wh_pause');

async function endpointWithDelivery(): Promise<{ endpointId: string; deliveryId: string }> {
  const endpointId = randomUUID();
  await t.endpoints.create(
    {
      id: endpointId,
      orgId: 'org_pause',
      url: 'https://example.com/hook',
      events: ['post.published'],
      payloadFormat: 'envelope',
      secretCipher: 'v1.k1.x.y.z',
    },
    1000,
  );
  const deliveryId = randomUUID();
  await t.deliveries.insertMany([
    {
      id: deliveryId,
      orgId: 'org_pause',
      endpointId,
      eventKey: randomUUID(),
      eventType: 'post.published',
      body: '{}',
      manual: false,
    },
  ]);
  return { endpointId, deliveryId };
}

const attemptRecord = (
  ids: { endpointId: string; deliveryId: string },
  outcome: { statusCode: number | null; succeeded?: boolean },
): AttemptRecord => ({
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

const attempt = (
  ids: { endpointId: string; deliveryId: string },
  outcome: { statusCode: number | null; succeeded?: boolean },
) => t.deliveries.record(attemptRecord(ids, outcome));

const setClock = (endpointId: string, failingSinceAgoMs: number, lastFailureAgoMs: number) =>
  t.endpoints.update('org_pause', endpointId, {
    failingSince: new Date(Date.now() - failingSinceAgoMs),
    lastFailureAt: new Date(Date.now() - lastFailureAgoMs),
  });

const read = async (endpointId: string) => {
  const row = await t.endpoints.find('org_pause', endpointId);
  if (row === null) throw new Error(`endpoint ${endpointId} is missing`);
  return row;
};

const readDelivery = async (ids: { endpointId: string; deliveryId: string }) => {
  const row = await t.deliveries.find('org_pause', ids.endpointId, ids.deliveryId, 20);
  if (row === null) throw new Error(`delivery ${ids.deliveryId} is missing`);
  return row;
};

describe('endpoint failure clock', () => {
  it('starts on a failure and pauses once failures kept coming past the threshold', async () => {
    const ids = await endpointWithDelivery();
    expect(await attempt(ids, { statusCode: 500 })).toBe('active');
    expect((await read(ids.endpointId)).failingSince).not.toBeNull();
    await setClock(ids.endpointId, THRESHOLD + DAY, DAY);
    expect(await attempt(ids, { statusCode: 500 })).toBe('auto_paused');
    expect((await read(ids.endpointId)).pausedAt).not.toBeNull();
  });

  it('counts attempts with no response (a receiver that never answers, or never accepts) like any failure', async () => {
    const ids = await endpointWithDelivery();
    expect(await attempt(ids, { statusCode: null })).toBe('active');
    expect((await read(ids.endpointId)).failingSince).not.toBeNull();
    await setClock(ids.endpointId, THRESHOLD + DAY, 60_000);
    expect(await attempt(ids, { statusCode: null })).toBe('auto_paused');
  });

  it('starts a new streak after a quiet gap longer than the threshold', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, 10 * DAY, 6 * DAY);
    expect(await attempt(ids, { statusCode: 500 })).toBe('active');
    const row = await read(ids.endpointId);
    // A new streak, begun by this attempt: not the old clock set days back (a margin no slow machine reaches).
    expect(Date.now() - row.failingSince!.getTime()).toBeLessThan(DAY);
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

// The dispatcher records the attempts finished meanwhile in one statement (domain/attempt-recorder.ts):
// per endpoint they must count in order, as if recorded one by one.
describe('a batch of attempts in one statement', () => {
  const ok = { statusCode: 204, succeeded: true };

  it('records every attempt and each delivery state, and leaves healthy endpoints unwritten', async () => {
    const a = await endpointWithDelivery();
    const b = await endpointWithDelivery();
    const before = await read(a.endpointId);
    const statuses = await t.deliveries.recordMany([attemptRecord(a, ok), attemptRecord(b, { statusCode: 500 })]);
    expect(statuses).toEqual([null, 'active']);
    expect((await read(a.endpointId)).updatedAt).toEqual(before.updatedAt);
    expect((await read(b.endpointId)).failingSince).not.toBeNull();
    const rows = [await readDelivery(a), await readDelivery(b)];
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(a.deliveryId)).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
    expect(byId.get(b.deliveryId)).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(byId.get(b.deliveryId)!.nextAttemptAt).not.toBeNull();
    expect(rows.flatMap((row) => row.attempts.map((item) => item.statusCode)).sort()).toEqual([204, 500]);
  });

  it('counts two attempts of one delivery in one batch, the last one deciding its state', async () => {
    const ids = await endpointWithDelivery();
    await t.deliveries.recordMany([attemptRecord(ids, { statusCode: 500 }), attemptRecord(ids, ok)]);
    const row = await readDelivery(ids);
    expect(row).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(row.attempts).toHaveLength(2);
  });

  it('a failure then a success clears the clock, even past the threshold', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, THRESHOLD + DAY, DAY);
    expect(await t.deliveries.recordMany([attemptRecord(ids, { statusCode: 500 }), attemptRecord(ids, ok)])).toEqual([
      'active',
      'active',
    ]);
    const row = await read(ids.endpointId);
    expect(row).toMatchObject({ status: 'active', failingSince: null, lastFailureAt: null });
  });

  it('a success then a failure starts a new streak now instead of pausing', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, THRESHOLD + DAY, DAY);
    expect(await t.deliveries.recordMany([attemptRecord(ids, ok), attemptRecord(ids, { statusCode: 500 })])).toEqual([
      'active',
      'active',
    ]);
    const row = await read(ids.endpointId);
    // A new streak, begun by this attempt: not the old clock set days back (a margin no slow machine reaches).
    expect(Date.now() - row.failingSince!.getTime()).toBeLessThan(DAY);
    expect(row.lastFailureAt).not.toBeNull();
  });

  it('a 410 pauses at once, whatever else the batch holds', async () => {
    const ids = await endpointWithDelivery();
    expect(await t.deliveries.recordMany([attemptRecord(ids, { statusCode: 410 }), attemptRecord(ids, ok)])).toEqual([
      'auto_paused',
      'auto_paused',
    ]);
    expect((await read(ids.endpointId)).pausedAt).not.toBeNull();
  });

  it('pauses a streak past the threshold when the batch only failed', async () => {
    const ids = await endpointWithDelivery();
    await setClock(ids.endpointId, THRESHOLD + DAY, DAY);
    expect(
      await t.deliveries.recordMany([attemptRecord(ids, { statusCode: 500 }), attemptRecord(ids, { statusCode: 503 })]),
    ).toEqual(['auto_paused', 'auto_paused']);
  });
});

describe('the auto-pause count', () => {
  it('counts each endpoint a batch paused once, however many of its attempts the batch held', async () => {
    let paused = 0;
    const recorder = new AttemptRecorder(t.deliveries, { maxBatch: 10, onAutoPaused: () => (paused += 1) });
    const gone = await endpointWithDelivery();
    const failing = await endpointWithDelivery();
    const healthy = await endpointWithDelivery();
    const statuses = await Promise.all([
      recorder.record(attemptRecord(gone, { statusCode: 410 })),
      recorder.record(attemptRecord(gone, { statusCode: 410 })),
      recorder.record(attemptRecord(failing, { statusCode: 500 })),
      recorder.record(attemptRecord(healthy, { statusCode: 204, succeeded: true })),
    ]);
    expect(statuses).toEqual(['auto_paused', 'auto_paused', 'active', null]);
    expect(paused).toBe(1);
  });
});

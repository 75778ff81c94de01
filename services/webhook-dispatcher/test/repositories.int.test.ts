// The repositories read and write with plain SQL (no Prisma client in the dispatcher's process), so
// their declared row types are checked here against the migrated schema: every field present with
// its JS type, tenant scoping, the keyset page and its attempts' order, and the delete cascade.
import { randomUUID } from 'node:crypto';
import { newId } from '@svc/contracts';
import { type EndpointRow } from '../src/data/endpoints.repository.ts';
import { useDispatcherDatabase } from './dispatcher-database.ts';

const t = useDispatcherDatabase('wh_repo');

// Ids in the order they are made (version 7): two endpoints created in the same millisecond list
// in their creation order (`ORDER BY created_at, id`), where random ids made the list test flaky.
const tryEndpoint = (orgId: string, url = 'https://example.com/hook', maxPerOrg = 1000) =>
  t.endpoints.create(
    {
      id: newId(),
      orgId,
      url,
      events: ['post.published', 'post.failed'],
      payloadFormat: 'envelope',
      secretCipher: 'v1.k1.a.b.c',
    },
    maxPerOrg,
  );

async function newEndpoint(orgId: string, url?: string): Promise<EndpointRow> {
  const created = await tryEndpoint(orgId, url);
  if (created === 'full') throw new Error(`${orgId} has no room for another endpoint`);
  return created;
}

async function deliveryWithAttempts(orgId: string, endpointId: string, statusCodes: number[]): Promise<string> {
  const id = randomUUID();
  await t.deliveries.insertMany([
    { id, orgId, endpointId, eventKey: randomUUID(), eventType: 'post.published', body: '{"a":1}', manual: false },
  ]);
  for (const statusCode of statusCodes) {
    // Attempts of one millisecond would order by their random ids: space them as retries are.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.deliveries.record({
      attemptId: randomUUID(),
      deliveryId: id,
      endpointId,
      statusCode,
      durationMs: 5,
      error: null,
      excerpt: `got ${statusCode}`,
      status: statusCode < 300 ? 'succeeded' : 'pending',
      nextAttemptAt: statusCode < 300 ? null : new Date(Date.now() + 60_000),
      succeeded: statusCode < 300,
      gone: false,
      autoPauseAfterMs: 3600_000,
    });
  }
  return id;
}

describe('EndpointsRepository', () => {
  it('returns every column of a created endpoint with its declared type', async () => {
    const created = await newEndpoint('org_repo_types');
    const expected: Record<keyof EndpointRow, string> = {
      id: 'string',
      orgId: 'string',
      url: 'string',
      events: 'array',
      payloadFormat: 'string',
      status: 'string',
      secretCipher: 'string',
      previousSecrets: 'array',
      failingSince: 'null',
      lastFailureAt: 'null',
      pausedAt: 'null',
      createdAt: 'date',
      updatedAt: 'date',
    };
    const kind = (value: unknown) =>
      value === null ? 'null' : Array.isArray(value) ? 'array' : value instanceof Date ? 'date' : typeof value;
    expect(Object.fromEntries(Object.entries(created).map(([key, value]) => [key, kind(value)]))).toEqual(expected);
    expect(created).toMatchObject({
      orgId: 'org_repo_types',
      events: ['post.published', 'post.failed'],
      status: 'active',
      payloadFormat: 'envelope',
    });
    expect(await t.endpoints.find('org_repo_types', created.id)).toEqual(created);
  });

  it('lists, finds, updates and deletes within the organization only', async () => {
    const first = await newEndpoint('org_repo_a', 'https://example.com/1');
    const second = await newEndpoint('org_repo_a', 'https://example.com/2');
    await newEndpoint('org_repo_b');
    expect((await t.endpoints.list('org_repo_a')).map((row) => row.url)).toEqual([
      'https://example.com/1',
      'https://example.com/2',
    ]);
    expect(await t.endpoints.find('org_repo_b', first.id)).toBeNull();
    expect(await t.endpoints.find('org_repo_a', 'not-a-uuid')).toBeNull();
    expect(await t.endpoints.update('org_repo_b', first.id, { status: 'disabled' })).toBeNull();
    expect(await t.endpoints.delete('org_repo_b', first.id)).toBe(false);
    expect((await t.endpoints.find('org_repo_a', first.id))?.status).toBe('active');

    const previousSecrets = [{ cipher: 'v1.k1.old', expires_at: new Date(Date.now() + 3600_000).toISOString() }];
    const updated = await t.endpoints.update('org_repo_a', second.id, {
      events: ['post.queued'],
      previousSecrets,
      pausedAt: null,
    });
    expect(updated).toMatchObject({
      id: second.id,
      events: ['post.queued'],
      previousSecrets,
      pausedAt: null,
      url: 'https://example.com/2',
    });
    expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(second.updatedAt.getTime());
    // The previous release's dispatchers read the newest earlier secret from its single-secret columns.
    expect(
      await t.db.$queryRawUnsafe(
        'SELECT previous_secret_cipher AS cipher, previous_secret_expires_at AS "expiresAt" FROM webhook_endpoints WHERE id = $1::uuid',
        second.id,
      ),
    ).toEqual([{ cipher: 'v1.k1.old', expiresAt: new Date(previousSecrets[0]!.expires_at) }]);
    await t.endpoints.update('org_repo_a', second.id, {
      status: 'auto_paused',
      failingSince: new Date(),
      pausedAt: new Date(),
    });
    expect(
      await t.endpoints.update('org_repo_a', second.id, {
        status: 'active',
        failingSince: null,
        lastFailureAt: null,
        pausedAt: null,
      }),
    ).toMatchObject({ status: 'active', failingSince: null, pausedAt: null });

    const deliveryId = await deliveryWithAttempts('org_repo_a', first.id, [500]);
    expect(await t.endpoints.delete('org_repo_a', first.id)).toBe(true);
    expect(await t.endpoints.find('org_repo_a', first.id)).toBeNull();
    // Its deliveries and their attempts went with it (foreign keys cascade).
    expect(await t.db.$queryRawUnsafe('SELECT id FROM webhook_deliveries WHERE id = $1::uuid', deliveryId)).toEqual([]);
    expect(
      await t.db.$queryRawUnsafe('SELECT id FROM webhook_attempts WHERE delivery_id = $1::uuid', deliveryId),
    ).toEqual([]);
  });
});

describe('DeliveriesRepository reads', () => {
  it("pages newest first by (created_at, id) with each delivery's attempts oldest first, within the organization", async () => {
    const endpoint = await newEndpoint('org_repo_pages');
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await deliveryWithAttempts('org_repo_pages', endpoint.id, i === 0 ? [500, 503, 204] : [204]));
    expect(await t.deliveries.countUpTo('org_repo_pages', endpoint.id, 10)).toEqual({ count: 5, exact: true });
    expect(await t.deliveries.countUpTo('org_repo_pages', endpoint.id, 5)).toEqual({ count: 5, exact: true });
    expect(await t.deliveries.countUpTo('org_repo_pages', endpoint.id, 4)).toEqual({ count: 4, exact: false });
    expect(await t.deliveries.countUpTo('org_repo_other', endpoint.id, 10)).toEqual({ count: 0, exact: true });
    expect(await t.deliveries.page('org_repo_other', endpoint.id, 10, 20)).toEqual([]);

    const seen: string[] = [];
    let after: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const rows = await t.deliveries.page('org_repo_pages', endpoint.id, 2, 20, after);
      const page = rows.slice(0, 2);
      seen.push(...page.map((row) => row.id));
      if (rows.length <= 2) break;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
    // Rows of one millisecond order by id, so compare with the database's own order.
    const order = await t.db.$queryRawUnsafe<{ id: string }[]>(
      'SELECT id::text AS id FROM webhook_deliveries WHERE endpoint_id = $1::uuid ORDER BY created_at DESC, id DESC',
      endpoint.id,
    );
    expect(seen).toEqual(order.map((row) => row.id));
    expect(new Set(seen)).toEqual(new Set(ids));

    const oldest = await t.deliveries.find('org_repo_pages', endpoint.id, ids[0]!, 20);
    expect(oldest).toMatchObject({
      id: ids[0],
      orgId: 'org_repo_pages',
      endpointId: endpoint.id,
      eventType: 'post.published',
      body: '{"a":1}',
      status: 'succeeded',
      attemptCount: 3,
      nextAttemptAt: null,
      manual: false,
    });
    expect(oldest!.createdAt).toBeInstanceOf(Date);
    expect(
      oldest!.attempts.map((attempt) => [attempt.statusCode, attempt.responseExcerpt, attempt.durationMs]),
    ).toEqual([
      [500, 'got 500', 5],
      [503, 'got 503', 5],
      [204, 'got 204', 5],
    ]);
    expect(
      oldest!.attempts.every((attempt) => attempt.createdAt instanceof Date && attempt.deliveryId === ids[0]),
    ).toBe(true);
    expect(await t.deliveries.find('org_repo_other', endpoint.id, ids[0]!, 20)).toBeNull();
    // Only the latest attempts are read; attemptCount still counts them all.
    const latest = await t.deliveries.find('org_repo_pages', endpoint.id, ids[0]!, 2);
    expect(latest!.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 204]);
    expect(latest!.attemptCount).toBe(3);
    const [first] = await t.deliveries.page('org_repo_pages', endpoint.id, 10, 1);
    expect(first!.attempts).toHaveLength(1);
  });
});

describe('EndpointsRepository limit per organization', () => {
  it('refuses the endpoint past the limit, also when every create runs at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => tryEndpoint('org_repo_cap', `https://example.com/${i}`, 5)),
    );
    expect(results.filter((result) => result === 'full')).toHaveLength(3);
    expect(await t.endpoints.list('org_repo_cap')).toHaveLength(5);
    // Another organization is not affected.
    expect(await tryEndpoint('org_repo_cap_other', undefined, 5)).not.toBe('full');
  });
});

describe('DeliveriesRepository retention', () => {
  it('deletes settled deliveries older than the retention with their attempts, batch after batch, and keeps pending and recent ones', async () => {
    const endpoint = await newEndpoint('org_repo_retention');
    const oldSucceeded = await Promise.all(
      [200, 200, 200].map((code) => deliveryWithAttempts('org_repo_retention', endpoint.id, [code])),
    );
    const oldFailed = await deliveryWithAttempts('org_repo_retention', endpoint.id, [500]);
    await t.db.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1::uuid`,
      oldFailed,
    );
    const oldPending = await deliveryWithAttempts('org_repo_retention', endpoint.id, [500]);
    const recent = await deliveryWithAttempts('org_repo_retention', endpoint.id, [200]);
    const aged = [...oldSucceeded, oldFailed, oldPending];
    await t.db.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET created_at = now() - interval '31 days' WHERE id = ANY($1::uuid[])`,
      aged,
    );

    // Batches of 2. A stop asked for ends the pass after its current batch; the next pass deletes the rest.
    expect(await t.deliveries.pruneSettled(30, 2, () => true)).toBe(2);
    expect(await t.deliveries.pruneSettled(30, 2, () => false)).toBe(2);
    const left = await t.db.$queryRawUnsafe<{ id: string }[]>(
      'SELECT id::text AS id FROM webhook_deliveries WHERE endpoint_id = $1::uuid ORDER BY id',
      endpoint.id,
    );
    expect(left.map((row) => row.id).sort()).toEqual([oldPending, recent].sort());
    const attempts = await t.db.$queryRawUnsafe<{ delivery_id: string }[]>(
      'SELECT delivery_id::text AS delivery_id FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[])',
      [...oldSucceeded, oldFailed],
    );
    expect(attempts).toEqual([]);
  });
});

import path from 'node:path';
import { openPgDatabase, type PgDatabase } from '@svc/db';
import { AppError } from '@svc/errors';
import { createLogger } from '@svc/logger';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { IdempotencyPruner } from '../../services/gateway/src/idempotency/idempotency-pruner.ts';
import { IdempotencyStore, type OperationId } from '../../services/gateway/src/idempotency/idempotency-store.ts';

const DAY_MS = 24 * 3600_000;

/** The gateway's Idempotency-Key store against its real table (docs/api-conventions.md, "Idempotency"). */
describe('IdempotencyStore (gateway database)', () => {
  let database: TestDatabase;
  let db: PgDatabase;
  let n = 0;
  const scope = (key = `key-${(n += 1)}`) => ({ orgId: 'org_1', key, method: 'post', path: '/v1/publish' });
  const accepted = (body: unknown) => async () => ({ status: 202, body });

  beforeAll(async () => {
    database = await createTestDatabase({
      prefix: 'gateway-idem',
      serviceDir: path.resolve(__dirname, '../../services/gateway'),
    });
    db = openPgDatabase(database.connection, { max: 4, onPoolError: () => undefined });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  it('replays the first response for the same body, whatever its key order, and refuses another body', async () => {
    const store = new IdempotencyStore(db);
    const s = scope();
    const first = await store.run(s, { a: 1, b: [1, 2] }, accepted({ job_id: 'j1' }));
    const again = await store.run(s, { b: [1, 2], a: 1 }, accepted({ job_id: 'j2' }));
    expect(again).toEqual({ status: 202, body: first.body, headers: { 'Idempotent-Replayed': 'true' } });
    await expect(store.run(s, { a: 2 }, accepted({}))).rejects.toMatchObject({
      code: 'idempotency_conflict',
      status: 422,
    });
    await expect(store.run({ ...s, path: '/v1/posts' }, { a: 1, b: [1, 2] }, accepted({}))).rejects.toMatchObject({
      code: 'idempotency_conflict',
    });
  });

  it('answers 409 to a duplicate while the first is in flight', async () => {
    const store = new IdempotencyStore(db);
    const s = scope();
    let finish: () => void = () => undefined;
    const first = store.run(
      s,
      { x: 1 },
      () =>
        new Promise((resolve) => {
          finish = () => resolve({ status: 202, body: { ok: 1 } });
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(store.run(s, { x: 1 }, accepted({}))).rejects.toMatchObject({ code: 'conflict', status: 409 });
    finish();
    await first;
    expect((await store.run(s, { x: 1 }, accepted({}))).body).toEqual({ ok: 1 });
  });

  it('stores a refusal and replays it, so the key cannot be reused for another body', async () => {
    const store = new IdempotencyStore(db);
    const refused = scope();
    let runs = 0;
    const refuse = async () => {
      runs += 1;
      throw new AppError('validation_error', 'Account acc_9 is not connected.', {
        details: [{ path: '/body/account_ids/0', message: 'unknown account' }],
      });
    };
    await expect(store.run(refused, { a: 1 }, refuse)).rejects.toMatchObject({ code: 'validation_error', status: 400 });
    const replayed = store.run(refused, { a: 1 }, refuse);
    await expect(replayed).rejects.toMatchObject({
      code: 'validation_error',
      status: 400,
      message: 'Account acc_9 is not connected.',
      details: [{ path: '/body/account_ids/0', message: 'unknown account' }],
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(runs).toBe(1);
    await expect(store.run(refused, { a: 2 }, accepted({}))).rejects.toMatchObject({
      code: 'idempotency_conflict',
      status: 422,
    });
  });

  it('frees the key after a retryable refusal (nothing happened; later may succeed)', async () => {
    const store = new IdempotencyStore(db);
    const limited = scope();
    await expect(
      store.run(limited, {}, async () => {
        throw new AppError('rate_limited', 'slow down', { retryable: true });
      }),
    ).rejects.toMatchObject({ code: 'rate_limited' });
    expect(
      await db.$queryRawUnsafe(
        'SELECT key FROM idempotency_records WHERE org_id = $1 AND key = $2',
        'org_1',
        limited.key,
      ),
    ).toEqual([]);
    expect((await store.run(limited, { other: true }, accepted({ ok: true }))).body).toEqual({ ok: true });
  });

  it('retries an ambiguous failure with the same operation id', async () => {
    const store = new IdempotencyStore(db);
    const lost = scope();
    const seen: OperationId[] = [];
    await expect(
      store.run(lost, { y: 1 }, async (operation) => {
        seen.push(operation);
        throw new AppError('service_unavailable', 'timed out');
      }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(store.run(lost, { y: 2 }, accepted({}))).rejects.toMatchObject({ code: 'idempotency_conflict' });
    const retried = await store.run(lost, { y: 1 }, async (operation) => {
      seen.push(operation);
      return { status: 202, body: { job_id: operation } };
    });
    expect(seen[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seen[1]).toBe(seen[0]);
    expect(retried.body).toEqual({ job_id: seen[0] });
  });

  it('lets a retry take a key over once the gateway running it died (lease ran out), with the same operation id', async () => {
    const store = new IdempotencyStore(db, { leaseMs: 300 });
    const s = scope();
    const seen: OperationId[] = [];
    await store.run(s, { d: 1 }, async (operation) => {
      seen.push(operation);
      return { status: 202, body: {} };
    });
    // What a gateway that died between inserting the record and storing the response leaves behind.
    await db.$executeRawUnsafe(
      "UPDATE idempotency_records SET status = NULL, response_body = NULL, locked_until = now() + interval '300 milliseconds' WHERE org_id = $1 AND key = $2",
      s.orgId,
      s.key,
    );
    await expect(store.run(s, { d: 1 }, accepted({}))).rejects.toMatchObject({ code: 'conflict', status: 409 });
    // The dead gateway's lock runs out (set in the past rather than slept past).
    await db.$executeRawUnsafe(
      "UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE org_id = $1 AND key = $2",
      s.orgId,
      s.key,
    );
    // The retry that took the key over holds it: another one meanwhile is told it is in progress.
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const inWork = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const takeover = store.run(s, { d: 1 }, async (operation) => {
      seen.push(operation);
      entered();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { status: 202, body: { job_id: operation } };
    });
    await inWork;
    await expect(store.run(s, { d: 1 }, accepted({}))).rejects.toMatchObject({ code: 'conflict', status: 409 });
    release();
    expect((await takeover).body).toEqual({ job_id: seen[0] });
    expect(seen).toEqual([seen[0], seen[0]]);
    expect((await store.run(s, { d: 1 }, accepted({}))).body).toEqual({ job_id: seen[0] });
  });

  it('keeps the lease of a long run alive, so a duplicate still gets 409 after the lease time', async () => {
    const store = new IdempotencyStore(db, { leaseMs: 600 });
    const s = scope();
    let finish: () => void = () => undefined;
    const first = store.run(
      s,
      { u: 1 },
      () =>
        new Promise((resolve) => {
          finish = () => resolve({ status: 201, body: { id: 'm1' } });
        }),
    );
    // Kept: time past the 600 ms lease is the point (the run's renewals must keep it held).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(store.run(s, { u: 1 }, accepted({}))).rejects.toMatchObject({ code: 'conflict', status: 409 });
    finish();
    await first;
    expect((await store.run(s, { u: 1 }, accepted({}))).body).toEqual({ id: 'm1' });
  });

  it('starts afresh once a key expired', async () => {
    const store = new IdempotencyStore(db, { ttlMs: 100 });
    const s = scope();
    const seen: OperationId[] = [];
    await store.run(s, { z: 1 }, async (operation) => {
      seen.push(operation);
      return { status: 202, body: { n: 1 } };
    });
    // Kept: time past the 100 ms TTL is the point.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const fresh = await store.run(s, { z: 2 }, async (operation) => {
      seen.push(operation);
      return { status: 202, body: { n: 2 } };
    });
    expect(fresh.body).toEqual({ n: 2 });
    expect(seen[1]).not.toBe(seen[0]);
  });

  it('keeps a key for 24 h by default: just under a day old it replays, just over it starts afresh', async () => {
    // Built as compose.ts builds the gateway's store: no options, so the default retention is what runs.
    const store = new IdempotencyStore(db);
    const s = scope();
    const seen: OperationId[] = [];
    const answer = (n: number) => async (operation: OperationId) => {
      seen.push(operation);
      return { status: 202, body: { n } };
    };
    // Time passes by ageing the record: the store compares its timestamps with the database clock.
    const age = (ms: number) =>
      db.$executeRawUnsafe(
        'UPDATE idempotency_records SET created_at = created_at - make_interval(secs => $3::float8), expires_at = expires_at - make_interval(secs => $3::float8) WHERE org_id = $1 AND key = $2',
        s.orgId,
        s.key,
        ms / 1000,
      );
    await store.run(s, { r: 1 }, answer(1));
    await age(DAY_MS - 60_000);
    expect(await store.run(s, { r: 1 }, answer(2))).toEqual({
      status: 202,
      body: { n: 1 },
      headers: { 'Idempotent-Replayed': 'true' },
    });
    await expect(store.run(s, { r: 2 }, answer(3))).rejects.toMatchObject({
      code: 'idempotency_conflict',
      status: 422,
    });
    await age(2 * 60_000);
    // A day and a minute old: the key is free again, for any body, as a new operation.
    expect(await store.run(s, { r: 2 }, answer(4))).toEqual({ status: 202, body: { n: 4 } });
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toBe(seen[0]);
    expect(await store.run(s, { r: 2 }, answer(5))).toEqual({
      status: 202,
      body: { n: 4 },
      headers: { 'Idempotent-Replayed': 'true' },
    });
  });

  it('runs without a key as if there were no store', async () => {
    const seen: OperationId[] = [];
    await new IdempotencyStore(db).run(undefined, {}, async (operation) => {
      seen.push(operation);
      return { status: 202, body: {} };
    });
    expect(seen).toEqual([undefined]);
  });

  it('prunes every expired record in one pass, batch after batch, and leaves live ones', async () => {
    await db.$executeRawUnsafe(
      `INSERT INTO idempotency_records (org_id, key, method, path, request_hash, status, created_at, expires_at)
       SELECT 'org_prune', 'k' || n, 'post', '/v1/publish', 'h', 202, now() - interval '2 days', now() - interval '1 day'
         FROM generate_series(1, 12000) AS n`,
    );
    const live = scope();
    await new IdempotencyStore(db).run({ ...live, orgId: 'org_prune' }, {}, accepted({}));
    const pruner = new IdempotencyPruner({
      db,
      logger: createLogger({ service: 'gateway-test', level: 'silent' }),
      batchSize: 1000,
    });
    expect(await pruner.pruneExpired()).toBeGreaterThanOrEqual(12_000);
    expect(
      await db.$queryRawUnsafe('SELECT count(*)::int AS n FROM idempotency_records WHERE org_id = $1', 'org_prune'),
    ).toEqual([{ n: 1 }]);
  });
});

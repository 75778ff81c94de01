import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { AppError } from '@svc/errors';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { PrismaClient } from '../../services/gateway/src/generated/prisma/client.ts';
import { IdempotencyStore, type OperationId } from '../../services/gateway/src/idempotency/idempotency-store.ts';

/** The gateway's Idempotency-Key store against its real table (decisions §2). */
describe('IdempotencyStore (gateway database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  let n = 0;
  const scope = (key = `key-${(n += 1)}`) => ({ orgId: 'org_1', key, method: 'post', path: '/v1/publish' });
  const accepted = (body: unknown) => async () => ({ status: 202, body });

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'gateway-idem', serviceDir: path.resolve(__dirname, '../../services/gateway') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
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
    await expect(store.run(s, { a: 2 }, accepted({}))).rejects.toMatchObject({ code: 'idempotency_conflict', status: 422 });
    await expect(store.run({ ...s, path: '/v1/posts' }, { a: 1, b: [1, 2] }, accepted({}))).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it('answers 409 to a duplicate while the first is in flight', async () => {
    const store = new IdempotencyStore(db);
    const s = scope();
    let finish: () => void = () => undefined;
    const first = store.run(s, { x: 1 }, () => new Promise((resolve) => { finish = () => resolve({ status: 202, body: { ok: 1 } }); }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(store.run(s, { x: 1 }, accepted({}))).rejects.toMatchObject({ code: 'conflict', status: 409 });
    finish();
    await first;
    expect((await store.run(s, { x: 1 }, accepted({}))).body).toEqual({ ok: 1 });
  });

  it('forgets a refused request, and retries an ambiguous one with the same operation id', async () => {
    const store = new IdempotencyStore(db);
    const refused = scope();
    await expect(store.run(refused, {}, async () => { throw new AppError('validation_error', 'bad'); })).rejects.toMatchObject({ code: 'validation_error' });
    expect(await db.idempotencyRecord.findUnique({ where: { orgId_key: { orgId: 'org_1', key: refused.key } } })).toBeNull();

    const lost = scope();
    const seen: OperationId[] = [];
    await expect(store.run(lost, { y: 1 }, async (operation) => { seen.push(operation); throw new AppError('service_unavailable', 'timed out'); })).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(store.run(lost, { y: 2 }, accepted({}))).rejects.toMatchObject({ code: 'idempotency_conflict' });
    const retried = await store.run(lost, { y: 1 }, async (operation) => { seen.push(operation); return { status: 202, body: { job_id: operation } }; });
    expect(seen[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seen[1]).toBe(seen[0]);
    expect(retried.body).toEqual({ job_id: seen[0] });
  });

  it('starts afresh once a key expired', async () => {
    const store = new IdempotencyStore(db, 100);
    const s = scope();
    const seen: OperationId[] = [];
    await store.run(s, { z: 1 }, async (operation) => { seen.push(operation); return { status: 202, body: { n: 1 } }; });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const fresh = await store.run(s, { z: 2 }, async (operation) => { seen.push(operation); return { status: 202, body: { n: 2 } }; });
    expect(fresh.body).toEqual({ n: 2 });
    expect(seen[1]).not.toBe(seen[0]);
  });

  it('runs without a key as if there were no store', async () => {
    const seen: OperationId[] = [];
    await new IdempotencyStore(db).run(undefined, {}, async (operation) => { seen.push(operation); return { status: 202, body: {} }; });
    expect(seen).toEqual([undefined]);
  });
});

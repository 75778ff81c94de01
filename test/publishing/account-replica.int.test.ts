import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForReplica } from './publishing-support.ts';

/**
 * The publisher's replica of accounts follows the accounts service through account.state_changed.v1
 * (connect, health change, revoke, delete), and accept answers from it: the accounts service is not
 * on the accept path for accounts the replica knows.
 */
describe('publishing: the publisher replica of accounts', () => {
  let system: SystemHarness;
  let auth: string;

  const publish = (body: unknown) =>
    request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send(body as object);

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'] });
    auth = `Bearer ${await system.token()}`;
  }, 60_000);

  afterAll(async () => system?.close());

  it('follows a connect, a health change after a refused token, and a delete', async () => {
    const linkedin = await connectAccount(system, auth, 'linkedin');
    const connected = await waitForReplica(system, linkedin, (row) => row !== undefined && row.version !== '0');
    expect(connected).toMatchObject({ health: 'active', deleted: false });

    await system.sandbox.fault('linkedin', 'token_revoked', 1);
    expect(
      (await request(system.gateway).post(`/v1/accounts/${linkedin}/refresh`).set('Authorization', auth)).status,
    ).toBe(409);
    const revoked = await waitForReplica(system, linkedin, (row) => row?.health !== 'active');
    expect(BigInt(revoked!.version)).toBeGreaterThan(BigInt(connected!.version));
    const unusable = await publish({ account_ids: [linkedin], text: 'to a revoked account' });
    expect(unusable.status).toBe(400);
    expect(unusable.body.error.details).toEqual([
      expect.objectContaining({ rule: 'account_unusable', account_id: linkedin }),
    ]);
    await system.sandbox.reset();

    expect((await request(system.gateway).delete(`/v1/accounts/${linkedin}`).set('Authorization', auth)).status).toBe(
      204,
    );
    await waitForReplica(system, linkedin, (row) => row?.deleted === true);
    const unknown = await publish({ account_ids: [linkedin], text: 'to a deleted account' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      expect.objectContaining({ rule: 'unknown_account', account_id: linkedin }),
    ]);
  });

  it('accepts from the replica while the accounts service is down', async () => {
    const x = await connectAccount(system, auth, 'x');
    await waitForReplica(system, x, (row) => row?.health === 'active');
    await system.workers.accounts!.stop();
    const res = await publish({ account_ids: [x], text: 'accepted without asking accounts' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued' });
  });
});

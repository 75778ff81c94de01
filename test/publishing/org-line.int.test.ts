import request from 'supertest';
import { uniqueName } from '@svc/testing';
import { tapMessages } from '../support/message-tap.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { COMMANDS, commandedDeliveries, connectAccount, waitForFinal } from './publishing-support.ts';

/**
 * An organization whose deliveries wait for a slot (DELIVERY_ORG_CONCURRENCY 1 here): a job accepted
 * meanwhile joins the line without a delivery command, and is delivered once, in its turn, by the
 * wake of the delivery that frees the slot.
 */
describe("publishing: jobs accepted into an organization's line", () => {
  let system: SystemHarness;
  let auth: string;
  let account: string;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'], env: { DELIVERY_ORG_CONCURRENCY: '1' } });
    auth = `Bearer ${await system.token()}`;
    account = await connectAccount(system, auth, 'x');
  }, 60_000);

  afterAll(async () => system?.close());

  const publish = async (text: string): Promise<string> => {
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({ account_ids: [account], text });
    expect(res.status).toBe(202);
    return (res.body as { job_id: string }).job_id;
  };

  /** The job's delivery ids with whether each waits for a slot now. */
  const deliveries = async (jobId: string) =>
    system.workers.publisher!.runtime.db.$queryRawUnsafe<{ id: string; waiting: boolean }[]>(
      "SELECT id::text AS id, org_wait_since IS NOT NULL AND status = 'pending' AS waiting FROM deliveries WHERE job_id = $1::uuid",
      jobId,
    );

  /** svc_delivery_org_deferred_total for X: deliveries set waiting, at their claim or at accept. */
  const deferred = async () =>
    (
      await system.workers.publisher!.runtime.metrics.registry.getSingleMetric('svc_delivery_org_deferred_total')!.get()
    ).values
      .filter((value) => value.labels.provider === 'x')
      .reduce((sum, value) => sum + value.value, 0);

  const until = async (what: string, check: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 10_000; !(await check());) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('stores the jobs of a busy organization waiting, sends them no command, and delivers each once, in order', async () => {
    const tap = await tapMessages(system.namespace, COMMANDS);
    try {
      const prefix = uniqueName('line');
      const deferredBefore = await deferred();
      // X answers slowly: the first job holds the organization's only slot, the second waits for it.
      await system.sandbox.createLatency('x', 1_500);
      const first = await publish(`${prefix} first`);
      const second = await publish(`${prefix} second`);
      await until('the second job waits for the slot', async () => (await deliveries(second))[0]?.waiting === true);
      await system.sandbox.createLatency('x', 0);

      // The line is not empty: these join it at accept time, behind the second.
      const later = [await publish(`${prefix} third`), await publish(`${prefix} fourth`)];
      for (const jobId of later) expect((await deliveries(jobId)).map((row) => row.waiting)).toEqual([true]);
      // The second at its claim, the later two at accept.
      expect((await deferred()) - deferredBefore).toBe(3);

      const finals = await Promise.all([first, second, ...later].map((jobId) => waitForFinal(system, auth, jobId)));
      expect(finals.map((post) => post.status)).toEqual(['published', 'published', 'published', 'published']);
      const posted = (await system.sandbox.posts('x'))
        .filter((item) => item.text.startsWith(prefix))
        .map((item) => item.text);
      expect(posted).toEqual(['first', 'second', 'third', 'fourth'].map((word) => `${prefix} ${word}`));

      // Commands went to the first two jobs only: the later ones were run by the wakes.
      const commanded = new Set(
        (await tap.until((seen) => seen.flatMap(commandedDeliveries).length >= 2)).flatMap(commandedDeliveries),
      );
      for (const jobId of [first, second])
        for (const { id } of await deliveries(jobId)) expect(commanded.has(id)).toBe(true);
      for (const jobId of later) for (const { id } of await deliveries(jobId)) expect(commanded.has(id)).toBe(false);
    } finally {
      await system.sandbox.createLatency('x', 0);
      await tap.close();
    }
  }, 60_000);
});

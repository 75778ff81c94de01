import request from 'supertest';
import type { RunningWorker } from '@svc/runtime';
import { uniqueName } from '@svc/testing';
import type { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { tapMessages } from '../support/message-tap.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { startTestPublisher } from './hooked-publisher.ts';
import { COMMANDS, commandedDeliveries, connectAccount, waitForFinal } from './publishing-support.ts';

/**
 * PUBLISHER_ROLES apart: the system's publisher only accepts; a second process on the same
 * database only delivers. Every target is delivered once, by the deliverer, and a job accepted into
 * its organization's line by the accepting process wakes the line through a command.
 */
describe('publishing: accepting and delivering in processes of their own', () => {
  let system: SystemHarness;
  let auth: string;
  let database: string;
  let deliverer: RunningWorker<PrismaClient> | undefined;

  const startDeliverer = async () => {
    deliverer = await startTestPublisher(system, {
      database,
      env: { PUBLISHER_ROLES: 'deliver', DELIVERY_ORG_CONCURRENCY: '1' },
    });
  };
  const stopDeliverer = async () => {
    await deliverer?.stop();
    deliverer = undefined;
  };

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher'],
      env: { PUBLISHER_ROLES: 'accept', DELIVERY_ORG_CONCURRENCY: '1' },
    });
    auth = `Bearer ${await system.token()}`;
    database = (
      await system.workers.publisher!.runtime.db.$queryRawUnsafe<{ database: string }[]>(
        'SELECT current_database() AS database',
      )
    )[0]!.database;
    await startDeliverer();
  }, 60_000);

  afterAll(async () => {
    await stopDeliverer();
    await system?.close();
  });

  const publish = async (accountIds: string[], text: string): Promise<string> => {
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({ account_ids: accountIds, text });
    expect(res.status).toBe(202);
    return (res.body as { job_id: string }).job_id;
  };

  /** Network attempts a process recorded (svc_delivery_attempts_total), all outcomes together. */
  const attempts = async (worker: RunningWorker<PrismaClient>) => {
    const metric = worker.runtime.metrics.registry.getSingleMetric('svc_delivery_attempts_total');
    return metric === undefined ? 0 : (await metric.get()).values.reduce((sum, value) => sum + value.value, 0);
  };

  const deliveryIds = async (jobId: string) =>
    (
      await system.workers.publisher!.runtime.db.$queryRawUnsafe<{ id: string }[]>(
        'SELECT id::text AS id FROM deliveries WHERE job_id = $1::uuid',
        jobId,
      )
    ).map((row) => row.id);

  it('delivers every target once, in the delivering process only', async () => {
    const accounts = [
      await connectAccount(system, auth, 'x'),
      await connectAccount(system, auth, 'linkedin'),
      await connectAccount(system, auth, 'facebook'),
    ];
    const prefix = uniqueName('roles');
    const before = await attempts(deliverer!);
    const jobs = await Promise.all(Array.from({ length: 4 }, (_, n) => publish(accounts, `${prefix} ${n}`)));
    const finals = await Promise.all(jobs.map((jobId) => waitForFinal(system, auth, jobId)));
    expect(finals.map((post) => post.status)).toEqual(['published', 'published', 'published', 'published']);
    const posted = (
      await Promise.all((['x', 'linkedin', 'facebook'] as const).map((network) => system.sandbox.posts(network)))
    )
      .flat()
      .filter((post) => post.text.startsWith(prefix))
      .map((post) => post.text)
      .sort();
    expect(posted).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3].map((n) => `${prefix} ${n}`));
    expect((await attempts(deliverer!)) - before).toBe(12);
    // The accepting process neither consumes delivery commands nor runs a delivery.
    expect(await attempts(system.workers.publisher! as RunningWorker<PrismaClient>)).toBe(0);
  }, 60_000);

  it("hands the deliveries it wakes for a job accepted into its organization's line to the deliverer, as commands", async () => {
    const account = await connectAccount(system, auth, 'x');
    const prefix = uniqueName('woken');
    // No deliverer: the first job's command waits in its queue, and its delivery is put in line as a
    // claim that found the organization busy would have (its slot then freed without a statement).
    await stopDeliverer();
    const tap = await tapMessages(system.namespace, COMMANDS);
    try {
      const first = await publish([account], `${prefix} first`);
      const [waiting] = await deliveryIds(first);
      await system.workers.publisher!.runtime.db.$executeRawUnsafe(
        'UPDATE deliveries SET org_wait_since = now() WHERE id = $1::uuid',
        waiting,
      );

      // The line is not empty: the second job joins it at accept, and its wake finds the free slot,
      // wakes the first (the oldest) and sends it a command: two commands for the first, none for the second.
      const second = await publish([account], `${prefix} second`);
      const seen = await tap.until(
        (envelopes) => envelopes.flatMap(commandedDeliveries).filter((id) => id === waiting).length >= 2,
      );
      const woken = seen.filter((envelope) => commandedDeliveries(envelope).includes(waiting!)).at(-1)!;
      expect(woken.payload).toMatchObject({ job_id: first });
      const [secondDelivery] = await deliveryIds(second);
      expect(seen.flatMap(commandedDeliveries)).not.toContain(secondDelivery);

      // A deliverer runs the first once (two commands), and its freed slot runs the second, in order.
      await startDeliverer();
      const finals = await Promise.all([first, second].map((jobId) => waitForFinal(system, auth, jobId)));
      expect(finals.map((post) => post.status)).toEqual(['published', 'published']);
      const posted = (await system.sandbox.posts('x'))
        .filter((post) => post.text.startsWith(prefix))
        .map((post) => post.text);
      expect(posted).toEqual([`${prefix} first`, `${prefix} second`]);
    } finally {
      await tap.close();
      if (deliverer === undefined) await startDeliverer();
    }
  }, 60_000);
});

import path from 'node:path';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { testHooks } from '../../libs/messaging/src/internals.ts';
import { runWorkerService, type RunningWorker } from '@svc/runtime';
import { TEST_DATABASE_URL, uniqueName } from '@svc/testing';
import request from 'supertest';
import { loadServiceConfig } from '../../services/publisher/src/config.ts';
import { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { wire } from '../../services/publisher/src/wiring.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, sleep, waitForFinal } from './publishing-support.ts';

/**
 * A worker that dies between the network accepting a post and the post being recorded must not
 * cause a second post when its command is redelivered: the delivery is left in flight, and once its
 * lease is over it resolves as `outcome_unknown` without calling the network again.
 */
describe('publishing: a worker dying mid-delivery', () => {
  let system: SystemHarness;
  let publisher: RunningWorker<PrismaClient>;
  let auth: string;
  const database = uniqueName('crash_publisher');
  const frozen: { release?: () => void; deliveries: string[] } = { deliveries: [] };

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts'] });
    const config = loadServiceConfig({ ...system.env, DATABASE_NAME: database, PROBE_PORT: '0', DELIVERY_LEASE_MS: '1500' });
    publisher = await runWorkerService({
      name: 'publisher',
      serviceDir: path.resolve(__dirname, '../../services/publisher'),
      config,
      logger: createLogger({ service: 'publisher', level: config.LOG_LEVEL }),
      probePort: 0,
      createClient: (adapter) => new PrismaClient({ adapter }),
      // The first delivery freezes right after the network accepted it, like a process that hangs or is killed there.
      wire: (runtime) => wire(runtime, config, {
        afterNetworkCall: (deliveryId) => {
          if (frozen.deliveries.length > 0) return Promise.resolve();
          frozen.deliveries.push(deliveryId);
          return new Promise<void>((_resolve, reject) => {
            frozen.release = () => reject(new Error('the frozen worker is gone'));
          });
        },
      }),
    });
    auth = `Bearer ${await system.token()}`;
  }, 60_000);

  afterAll(async () => {
    frozen.release?.();
    await publisher?.stop();
    await system?.close();
    await dropDatabase(connectionConfig(TEST_DATABASE_URL, database));
  });

  it('produces exactly one post on the network after redelivery, and the job does not stay processing', async () => {
    const x = await connectAccount(system, auth, 'x');
    const linkedin = await connectAccount(system, auth, 'linkedin');
    const text = `crash window ${Date.now()}`;
    const res = await request(system.gateway).post('/v1/publish').set('Authorization', auth).send({ account_ids: [x], text });
    expect(res.status).toBe(202);

    // Wait until the network has the post and the worker is frozen before recording it.
    for (let i = 0; i < 100 && frozen.deliveries.length === 0; i += 1) await sleep(50);
    expect(frozen.deliveries).toHaveLength(1);
    expect((await system.sandbox.posts('x')).filter((post) => post.text === text)).toHaveLength(1);

    // The worker's channel dies with the message unacknowledged: RabbitMQ redelivers it.
    await publisher.runtime.broker[testHooks].loseConsumerChannels();

    const post = await waitForFinal(system, auth, res.body.job_id, 15_000);
    expect(post.status).toBe('failed');
    expect(post.results[0]).toEqual(expect.objectContaining({ status: 'failed', error_code: 'outcome_unknown', attempts: 1 }));
    expect(post.results[0]!.error_message).toContain('not posted again');
    await sleep(1000);
    expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(1);

    // The service is healthy afterwards: the next job publishes normally.
    const next = await request(system.gateway).post('/v1/publish').set('Authorization', auth).send({ account_ids: [x, linkedin], text: `${text} again` });
    expect((await waitForFinal(system, auth, next.body.job_id)).status).toBe('published');
  });
});

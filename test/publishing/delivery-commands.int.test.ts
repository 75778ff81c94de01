import request from 'supertest';
import { uniqueName } from '@svc/testing';
import { tapMessages } from '../support/message-tap.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal } from './publishing-support.ts';

const COMMANDS = ['publisher.delivery_run.v1', 'publisher.delivery_run.v2'];
/** The deliveries a command names: v2 lists several, v1 one. */
const deliveriesOf = (envelope: { payload: Record<string, unknown> }): string[] =>
  (envelope.payload.delivery_ids as string[] | undefined) ?? [envelope.payload.delivery_id as string];

/**
 * How a queued job's targets reach the publisher's deliveries: in v2 commands of up to 10, or, with
 * DELIVERY_RUN_BATCHES=false (the first rollout over an earlier release), one v1 each.
 */
describe.each<{ batches: boolean; env: Record<string, string> }>([
  { batches: true, env: {} },
  { batches: false, env: { DELIVERY_RUN_BATCHES: 'false' } },
])('publishing: delivery commands (DELIVERY_RUN_BATCHES $batches)', ({ batches, env }) => {
  let system: SystemHarness;
  let auth: string;
  const accounts: string[] = [];

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'], env });
    auth = `Bearer ${await system.token()}`;
    for (let n = 0; n < 12; n++) accounts.push(await connectAccount(system, auth, 'x'));
  }, 60_000);

  afterAll(async () => system?.close());

  it(
    batches
      ? "sends a job's 12 targets in two commands, 10 and 2, and posts each once"
      : 'sends one v1 command per target, and posts each once',
    async () => {
      const tap = await tapMessages(system.namespace, COMMANDS);
      try {
        const text = `commands ${uniqueName('post')}`;
        const res = await request(system.gateway)
          .post('/v1/publish')
          .set('Authorization', auth)
          .send({ account_ids: accounts, text });
        expect(res.status).toBe(202);
        const post = await waitForFinal(system, auth, (res.body as { job_id: string }).job_id);
        expect(post.status).toBe('published');
        expect(post.results).toHaveLength(12);

        const commands = await tap.until((seen) => seen.flatMap(deliveriesOf).length >= 12);
        const named = commands.map((envelope) => ({ type: envelope.type, ids: deliveriesOf(envelope) }));
        if (batches) {
          // The relay may publish the two commands in either order.
          expect(
            named.map((command) => [command.type, command.ids.length]).sort((a, b) => Number(b[1]) - Number(a[1])),
          ).toEqual([
            ['publisher.delivery_run.v2', 10],
            ['publisher.delivery_run.v2', 2],
          ]);
        } else {
          expect(named.map((command) => command.type)).toEqual(
            Array.from({ length: 12 }, () => 'publisher.delivery_run.v1'),
          );
        }
        expect(new Set(named.flatMap((command) => command.ids)).size).toBe(12);
        // Each account's post is on X once.
        expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(12);
      } finally {
        await tap.close();
      }
    },
  );
});

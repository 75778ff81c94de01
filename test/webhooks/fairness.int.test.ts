// Fairness between organizations: one organization with many endpoints pointing at a tarpit (a
// receiver that accepts and never answers) holds at most its in-flight limit of the dispatcher, and
// another organization's deliveries are still attempted at once.
import { postPublished, type PayloadOf } from '@svc/contracts';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const ORG_CONCURRENCY = 2;
let system: SystemHarness;
let tarpit: Receiver;
let healthy: Receiver;

beforeAll(async () => {
  tarpit = await startReceiver();
  healthy = await startReceiver();
  system = await startSystem({
    services: ['webhook-dispatcher'],
    env: {
      // The tarpit holds every attempt far longer than this test waits for the other organization.
      WEBHOOK_TIMEOUT_MS: '30000',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_EVENTS_PREFETCH: '4',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_ORG_CONCURRENCY: String(ORG_CONCURRENCY),
    },
  });
}, 90_000);

afterAll(async () => {
  // The receivers first: attempts hanging on the tarpit end at once instead of outliving the system.
  await tarpit?.close();
  await healthy?.close();
  await system?.close();
}, 120_000);

type PostEvent = PayloadOf<typeof postPublished>;
const event = (text: string): PostEvent => ({
  id: '5f0e6a1e-64a5-4c9e-9d2a-6f0e7b7d0f01',
  job_id: '5f0e6a1e-64a5-4c9e-9d2a-6f0e7b7d0f01',
  status: 'published',
  account_ids: ['acc_1'],
  platforms: ['x'],
  text,
  scheduled_at: null,
  error_message: null,
  results: [
    {
      account_id: 'acc_1',
      provider: 'x',
      status: 'published',
      platform_post_id: 'x_1',
      platform_post_url: null,
      error_code: null,
      error_message: null,
    },
  ],
});

const publish = (orgId: string, text: string) =>
  system.workers['webhook-dispatcher']!.runtime.broker.publish(postPublished, event(text), { orgId, requestId: null });

async function endpoint(org: string, url: string): Promise<string> {
  const res = await request(system.gateway)
    .post('/v1/webhooks')
    .set('Authorization', `Bearer ${await system.token(org)}`)
    .send({ url, events: ['post.published'] });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

async function deliveries(org: string, id: string): Promise<{ status: string; attempts: unknown[] }[]> {
  const res = await request(system.gateway)
    .get(`/v1/webhooks/${id}/deliveries`)
    .set('Authorization', `Bearer ${await system.token(org)}`);
  return res.body.items as { status: string; attempts: unknown[] }[];
}

describe('webhook fairness between organizations', () => {
  it("delivers to another organization while one organization's many endpoints hang", async () => {
    tarpit.script('/tarpit', () => 'hang');
    const flooding = await Promise.all(
      Array.from({ length: 8 }, (_, i) => endpoint('org_flood', tarpit.url(`/tarpit?endpoint=${i}`))),
    );
    const victim = await endpoint('org_quiet', healthy.url('/quiet'));
    // More events than the events prefetch, each fanned out to every endpoint: 48 deliveries to the tarpit.
    for (let i = 0; i < 6; i += 1) await publish('org_flood', `flood ${i}`);
    await tarpit.waitFor('/tarpit', ORG_CONCURRENCY);
    await publish('org_quiet', 'hello');
    // Far sooner than the tarpit's attempts time out (30 s): the other organization's delivery is sent
    // and recorded while the flooding one's are all still in flight.
    await healthy.waitFor('/quiet', 1, 10_000);
    const deadline = Date.now() + 10_000;
    while ((await deliveries('org_quiet', victim))[0]?.status !== 'succeeded') {
      if (Date.now() > deadline) throw new Error("the quiet organization's delivery was not recorded as succeeded");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const flooded = (await Promise.all(flooding.map((id) => deliveries('org_flood', id)))).flat();
    expect(flooded.flatMap((item) => item.attempts)).toEqual([]);
    // The flooding organization never had more than its limit at the tarpit.
    expect(tarpit.received('/tarpit').length).toBe(ORG_CONCURRENCY);
  }, 60_000);
});

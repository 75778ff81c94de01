import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount } from './publishing-support.ts';

interface QueueBody {
  timezone: string;
  slots: { day: string; time: string }[];
  next_slots: string[];
  updated_at: string;
}

// Twice a day, every day: a queued post never waits long for a time, so each test finds plenty.
const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].flatMap((day) => [
  { day, time: '09:00' },
  { day, time: '17:30' },
]);

/**
 * The posting queue end to end (docs/api-queue.md): weekly times in a zone, posts with `queue: true`
 * scheduled at the next time free for every target, one post per account and time however many
 * arrive at once, a canceled post's time free again, each organization's queue its own.
 */
describe('publishing: queue slots', () => {
  let system: SystemHarness;
  let auth: string;
  let other: string;
  let x: string;
  let linkedin: string;
  let otherX: string;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'] });
    auth = `Bearer ${await system.token(uniqueName('org_queue'))}`;
    other = `Bearer ${await system.token(uniqueName('org_queue_other'))}`;
    [x, linkedin, otherX] = await Promise.all([
      connectAccount(system, auth, 'x'),
      connectAccount(system, auth, 'linkedin'),
      connectAccount(system, other, 'x'),
    ]);
  }, 180_000);

  afterAll(async () => {
    await system?.close();
  }, 120_000);

  const getQueue = (as = auth) => request(system.gateway).get('/v1/queue').set('Authorization', as);
  const putQueue = (body: unknown, as = auth) =>
    request(system.gateway)
      .put('/v1/queue')
      .set('Authorization', as)
      .send(body as object);
  const queuePost = (accountIds: string[], as = auth, extra: Record<string, unknown> = {}) =>
    request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', as)
      .send({ account_ids: accountIds, text: `queued ${uniqueName('q')}`, queue: true, ...extra });
  const nextSlots = async (as = auth) => {
    const res = await getQueue(as);
    expect(res.status).toBe(200);
    return (res.body as QueueBody).next_slots;
  };

  it('has no queue until one is set: GET 404, a queued post 409 queue_not_configured', async () => {
    expect((await getQueue()).status).toBe(404);
    const res = await queuePost([x]);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(res.body.error.details).toEqual([expect.objectContaining({ rule: 'queue_not_configured' })]);
  });

  it('refuses an unknown zone, a bad day or time and a repeated slot, naming each', async () => {
    const zone = await putQueue({ timezone: 'Mars/Olympus_Mons', slots: [{ day: 'mon', time: '09:00' }] });
    expect(zone.status).toBe(400);
    expect(zone.body.error.details).toEqual([
      expect.objectContaining({ path: '/body/timezone', rule: 'timezone_invalid' }),
    ]);
    const duplicate = await putQueue({
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'mon', time: '09:00' },
        { day: 'mon', time: '09:00' },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.details).toEqual([
      expect.objectContaining({ path: '/body/slots/1', rule: 'slot_duplicate' }),
    ]);
    expect((await putQueue({ timezone: 'UTC', slots: [{ day: 'monday', time: '09:00' }] })).status).toBe(400);
    expect((await putQueue({ timezone: 'UTC', slots: [{ day: 'mon', time: '9:00' }] })).status).toBe(400);
    expect((await putQueue({ timezone: 'UTC', slots: [], extra: 1 })).status).toBe(400);
    const tooMany = Array.from({ length: 101 }, (_, k) => ({
      day: 'mon',
      time: `${String(Math.floor(k / 60)).padStart(2, '0')}:${String(k % 60).padStart(2, '0')}`,
    }));
    expect((await putQueue({ timezone: 'UTC', slots: tooMany })).status).toBe(400);
    expect((await getQueue()).status).toBe(404);
  });

  it('sets the queue and lists the next 10 times in its zone, ascending', async () => {
    const res = await putQueue({ timezone: 'europe/berlin', slots: EVERY_DAY });
    expect(res.status).toBe(200);
    const queue = res.body as QueueBody;
    expect(queue.timezone).toBe('Europe/Berlin');
    expect(queue.slots).toEqual(EVERY_DAY);
    expect(queue.next_slots).toHaveLength(10);
    const times = queue.next_slots.map((slot) => Date.parse(slot));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    for (const slot of queue.next_slots) {
      const wall = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }).format(new Date(slot));
      expect(['09:00', '17:30']).toContain(wall);
    }
    expect(times[0]).toBeGreaterThan(Date.now());
    expect(await nextSlots()).toEqual(queue.next_slots);
  });

  it('refuses queue with scheduled_at (400 queue_with_scheduled_at)', async () => {
    const res = await queuePost([x], auth, { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: '/body/queue', rule: 'queue_with_scheduled_at' }),
    ]);
  });

  it('two concurrent queue posts take two slots; next_slots skips the taken ones', async () => {
    const before = await nextSlots();
    const [first, second] = await Promise.all([queuePost([x]), queuePost([x])]);
    expect(first!.status).toBe(202);
    expect(second!.status).toBe(202);
    expect([first!.body.status, second!.body.status]).toEqual(['scheduled', 'scheduled']);
    const taken = [first!.body.scheduled_at as string, second!.body.scheduled_at as string].sort();
    expect(taken).toEqual(before.slice(0, 2));
    expect(await nextSlots()).toEqual(expect.arrayContaining(before.slice(2)));
    expect((await nextSlots()).slice(0, 8)).toEqual(before.slice(2));
    // Another account of the organization has those times free: a post to it and a taken account
    // goes at the first time free for both.
    const both = await queuePost([x, linkedin]);
    expect(both.status).toBe(202);
    expect(both.body.scheduled_at).toBe(before[2]);
    const alone = await queuePost([linkedin]);
    expect(alone.status).toBe(202);
    expect(alone.body.scheduled_at).toBe(before[0]);
  });

  it('a canceled post frees its time for the next queued post', async () => {
    const post = await queuePost([x]);
    expect(post.status).toBe(202);
    const at = post.body.scheduled_at as string;
    expect(await nextSlots()).not.toContain(at);
    const canceled = await request(system.gateway)
      .post(`/v1/posts/${post.body.id as string}/cancel`)
      .set('Authorization', auth);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(await nextSlots()).toContain(at);
    const again = await queuePost([x]);
    expect(again.status).toBe(202);
    expect(again.body.scheduled_at).toBe(at);
  });

  it("keeps each organization's queue and slots its own", async () => {
    expect((await getQueue(other)).status).toBe(404);
    expect((await queuePost([otherX], other)).status).toBe(409);
    // Another organization's account named in a queued post is unknown to it, as anywhere.
    const foreign = await queuePost([otherX]);
    expect(foreign.status).toBe(400);
    const mine = await nextSlots();
    const set = await putQueue({ timezone: 'America/New_York', slots: [{ day: 'wed', time: '08:15' }] }, other);
    expect(set.status).toBe(200);
    expect(set.body.timezone).toBe('America/New_York');
    const theirs = set.body.next_slots as string[];
    const post = await queuePost([otherX], other);
    expect(post.status).toBe(202);
    expect(post.body.scheduled_at).toBe(theirs[0]);
    expect(await nextSlots()).toEqual(mine);
    expect((await getQueue()).body.timezone).toBe('Europe/Berlin');
  });

  it('answers 409 queue_full when no time within two years is free', async () => {
    const org = `Bearer ${await system.token(uniqueName('org_queue_empty'))}`;
    const account = await connectAccount(system, org, 'linkedin');
    expect((await putQueue({ timezone: 'Asia/Tokyo', slots: [] }, org)).body.next_slots).toEqual([]);
    const res = await queuePost([account], org);
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual([expect.objectContaining({ rule: 'queue_full' })]);
  });

  it('is open to API keys as well as dashboard tokens', async () => {
    const org = uniqueName('org_queue_key');
    const key = `Bearer ${await system.apiKey(org)}`;
    const res = await putQueue({ timezone: 'UTC', slots: [{ day: 'fri', time: '12:00' }] }, key);
    expect(res.status).toBe(200);
    expect((await getQueue(key)).body.slots).toEqual([{ day: 'fri', time: '12:00' }]);
  });
});

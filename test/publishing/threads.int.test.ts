import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal, type PostBody } from './publishing-support.ts';

interface Part {
  index: number;
  status: string;
  platform_post_id: string | null;
  platform_post_url: string | null;
  error_code: string | null;
  error_message: string | null;
}
type Result = PostBody['results'][number] & { parts?: Part[] };

/**
 * Threads on X end to end (docs/api-conventions.md, "Threads"): parts published in order, each
 * replying to the one before; a part refused for good fails the target with the parts before it
 * kept and listed; a part whose answer is lost is looked up on X (a reply to the part before, with
 * its text) before anything is posted again, so no part is ever posted twice.
 */
describe('publishing: threads on X', () => {
  let system: SystemHarness;
  let receiver: Receiver;
  let auth: string;
  let x: string;
  let linkedin: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    system = await startSystem({
      services: ['accounts', 'publisher', 'webhook-dispatcher'],
      env: { DELIVERY_RECONCILE_DELAYS_MS: '300,300,300', WEBHOOK_RETRY_JITTER: '0' },
    });
    auth = `Bearer ${await system.token(uniqueName('org_threads'))}`;
    x = await connectAccount(system, auth, 'x');
    linkedin = await connectAccount(system, auth, 'linkedin');
    const endpoint = await request(system.gateway)
      .post('/v1/webhooks')
      .set('Authorization', auth)
      .send({ url: receiver.url('/hooks'), events: ['post.published', 'post.failed'] });
    expect(endpoint.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
    await system?.close();
  }, 120_000);

  const texts = (count: number) => {
    const id = uniqueName('thread');
    return Array.from({ length: count }, (_, k) => `${id} part ${k + 1}`);
  };
  const publishThread = async (thread: { text: string; media_urls?: string[] }[], path = '/v1/posts') => {
    const res = await request(system.gateway)
      .post(path)
      .set('Authorization', auth)
      .send({ account_ids: [x], thread });
    expect(res.status).toBe(202);
    const id = (res.body.id ?? res.body.job_id) as string;
    const post = await waitForFinal(system, auth, id, 30_000);
    return { post, result: post.results[0] as Result };
  };
  /** The thread's posts on X, by text, oldest first, each with the post it replies to. */
  const onX = async (parts: string[]) =>
    (await system.sandbox.posts('x'))
      .filter((post) => parts.includes(post.text))
      .map((post) => ({ id: post.id, text: post.text, replyTo: post.options.in_reply_to_tweet_id, media: post.media }));
  const hookFor = async (postId: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const hook = receiver
        .received('/hooks')
        .map((entry) => JSON.parse(entry.rawBody) as { type: string; data: { id: string; parts?: unknown } })
        .find((body) => body.data.id === postId);
      if (hook !== undefined) return hook;
      if (Date.now() > deadline) throw new Error(`no webhook for ${postId}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('publishes each part in reply to the one before, with its own media; the target is the first part; the webhook lists the parts', async () => {
    const parts = texts(3);
    const { post, result } = await publishThread([
      { text: parts[0]! },
      { text: parts[1]!, media_urls: [system.media.url('/image.jpg')] },
      { text: parts[2]! },
    ]);
    expect(post.status).toBe('published');
    const posted = await onX(parts);
    expect(posted.map((item) => item.text)).toEqual(parts);
    expect(posted.map((item) => item.replyTo)).toEqual([undefined, posted[0]!.id, posted[1]!.id]);
    expect(posted.map((item) => item.media.length)).toEqual([0, 1, 0]);
    expect(result.platform_post_id).toBe(posted[0]!.id);
    expect(result.parts).toEqual(
      posted.map((item, index) => ({
        index,
        status: 'published',
        platform_post_id: item.id,
        platform_post_url: expect.stringContaining(item.id),
        error_code: null,
        error_message: null,
      })),
    );
    const hook = await hookFor(post.id);
    expect(hook.type).toBe('post.published');
    expect(hook.data.parts).toEqual(result.parts!.map((part) => ({ account_id: x, ...part })));
  });

  it('a thread whose third part is refused: the target fails naming it, parts 1-2 stay published and are not posted again', async () => {
    await system.sandbox.scopedFault('x', 'duplicate', { on: 'reply', after: 1 });
    const parts = texts(4);
    const { post, result } = await publishThread(parts.map((text) => ({ text })));
    expect(post.status).toBe('failed');
    const posted = await onX(parts);
    expect(posted.map((item) => item.text)).toEqual(parts.slice(0, 2));
    expect(result).toEqual(
      expect.objectContaining({ status: 'failed', error_code: 'duplicate', platform_post_id: posted[0]!.id }),
    );
    expect(result.error_message).toMatch(/^Part 3 of 4: .*Parts 1-2 exist and are not posted again\.$/);
    expect(result.parts!.map((part) => [part.status, part.platform_post_id, part.error_code])).toEqual([
      ['published', posted[0]!.id, null],
      ['published', posted[1]!.id, null],
      ['failed', null, 'duplicate'],
      ['failed', null, 'thread_interrupted'],
    ]);
    const hook = await hookFor(post.id);
    expect(hook.type).toBe('post.failed');
    expect(hook.data.parts).toEqual(result.parts!.map((part) => ({ account_id: x, ...part })));
  });

  it('the answer to part 2 is lost: X is asked, part 2 is found and never posted twice, and the thread goes on', async () => {
    await system.sandbox.scopedFault('x', 'lost_response', { on: 'reply' });
    const parts = texts(3);
    const { post, result } = await publishThread(
      parts.map((text) => ({ text })),
      '/v1/publish',
    );
    expect(post.status).toBe('published');
    const posted = await onX(parts);
    expect(posted.map((item) => item.text)).toEqual(parts);
    expect(posted.map((item) => item.replyTo)).toEqual([undefined, posted[0]!.id, posted[1]!.id]);
    expect(result.parts!.map((part) => part.platform_post_id)).toEqual(posted.map((item) => item.id));
    expect(result.attempts).toBe(1);
    expect(await system.sandbox.pendingFaults()).toEqual([]);
  });

  it('refuses a thread to another network, a part over the limit, and a body with both text and thread: create 400, validate lists them', async () => {
    const body = {
      account_ids: [x, linkedin],
      thread: [{ text: 'fine' }, { text: 'x'.repeat(281) }],
    };
    const created = await request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
    expect(created.status).toBe(400);
    expect(created.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: 'thread_unsupported', account_id: linkedin })]),
    );
    const validated = await request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', auth)
      .send({ ...body, text: 'and text', first_comment: { text: 'no' } });
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(
      (validated.body.problems as { account_id: string | null; path: string; rule: string }[]).map((problem) => [
        problem.account_id,
        problem.path,
        problem.rule,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [null, '/body/thread', 'text_or_thread'],
        [null, '/body/first_comment', 'first_comment_with_thread'],
        [linkedin, '/body/thread', 'thread_unsupported'],
        [x, '/body/thread/1/text', 'text_length'],
      ]),
    );
    const neither = await request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', auth)
      .send({ account_ids: [x] });
    expect(neither.body.problems).toEqual([expect.objectContaining({ path: '/body/text', rule: 'text_or_thread' })]);
    const one = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [x], thread: [{ text: 'alone' }] });
    expect(one.status).toBe(400);
  });
});

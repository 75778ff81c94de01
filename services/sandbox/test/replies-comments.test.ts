import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { mediaHost } from './support/media.ts';

// X replies (docs/networks.md §3.2, `reply.in_reply_to_tweet_id`), Graph and LinkedIn comments, and
// faults armed for those calls alone (`on`, `after`).
describe('sandbox: replies on X, comments on Graph and LinkedIn, scoped faults', () => {
  const app = createSandboxApp({
    publicUrl: 'http://127.0.0.1:4010',
    allowPrivateUrls: true,
    processingPolls: 0,
    timeoutFaultMs: 200,
  });
  let media: Awaited<ReturnType<typeof mediaHost>>;
  beforeAll(async () => {
    media = await mediaHost();
  });
  afterAll(async () => media.close());
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const fault = (body: Record<string, unknown>) => request(app).post('/__sandbox/faults').send(body);
  const tweet = (body: Record<string, unknown>) =>
    request(app).post('/x/2/tweets').set('Authorization', 'Bearer byok-x').send(body);

  it('X: a reply names the post it answers; lookups and the timeline return referenced_tweets replied_to', async () => {
    const first = await tweet({ text: 'part one' });
    expect(first.status).toBe(201);
    const reply = await tweet({ text: 'part two', reply: { in_reply_to_tweet_id: first.body.data.id } });
    expect(reply.status).toBe(201);
    const lookup = await request(app)
      .get(`/x/2/tweets/${reply.body.data.id}`)
      .query({ 'tweet.fields': 'created_at,referenced_tweets' })
      .set('Authorization', 'Bearer byok-x');
    expect(lookup.body.data.referenced_tweets).toEqual([{ type: 'replied_to', id: first.body.data.id }]);
    const plain = await request(app).get(`/x/2/tweets/${first.body.data.id}`).set('Authorization', 'Bearer byok-x');
    expect(plain.body.data.referenced_tweets).toBeUndefined();

    const me = await request(app).get('/x/2/users/me').set('Authorization', 'Bearer byok-x');
    const timeline = await request(app)
      .get(`/x/2/users/${me.body.data.id}/tweets`)
      .query({ 'tweet.fields': 'referenced_tweets', max_results: 5 })
      .set('Authorization', 'Bearer byok-x');
    expect(timeline.body.data).toEqual([
      expect.objectContaining({
        id: reply.body.data.id,
        referenced_tweets: [{ type: 'replied_to', id: first.body.data.id }],
      }),
      expect.not.objectContaining({ referenced_tweets: expect.anything() }),
    ]);
    const posts = await request(app).get('/__sandbox/posts?network=x');
    expect(posts.body.posts.map((post: { options: unknown }) => post.options)).toEqual([
      {},
      { in_reply_to_tweet_id: first.body.data.id },
    ]);
  });

  it('X: a reply to a post that does not exist is refused (403), a malformed id is a 400', async () => {
    const missing = await tweet({ text: 'orphan', reply: { in_reply_to_tweet_id: '1234567890' } });
    expect(missing.status).toBe(403);
    expect(missing.body.detail).toBe('You attempted to reply to a Tweet that is deleted or not visible to you.');
    const malformed = await tweet({ text: 'orphan', reply: { in_reply_to_tweet_id: 'abc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].parameters).toHaveProperty(['reply.in_reply_to_tweet_id']);
  });

  it('X: a fault armed on replies after one passes refuses the third part of a thread, not the first two', async () => {
    expect((await fault({ network: 'x', fault: 'duplicate', on: 'reply', after: 1 })).status).toBe(201);
    const one = await tweet({ text: 'thread 1' });
    const two = await tweet({ text: 'thread 2', reply: { in_reply_to_tweet_id: one.body.data.id } });
    const three = await tweet({ text: 'thread 3', reply: { in_reply_to_tweet_id: two.body.data.id } });
    expect([one.status, two.status, three.status]).toEqual([201, 201, 403]);
    expect(three.body.detail).toContain('duplicate content');
    expect((await request(app).get('/__sandbox/faults')).body.pending).toEqual([]);
  });

  it('X: lost_response on a reply creates it and drops the answer; a post that is no reply is untouched', async () => {
    await fault({ network: 'x', fault: 'lost_response', on: 'reply' }).expect(201);
    const one = await tweet({ text: 'lost 1' });
    expect(one.status).toBe(201);
    await expect(tweet({ text: 'lost 2', reply: { in_reply_to_tweet_id: one.body.data.id } })).rejects.toThrow();
    const posts = await request(app).get('/__sandbox/posts?network=x');
    expect(posts.body.posts.map((post: { text: string }) => post.text)).toEqual(['lost 1', 'lost 2']);
  });

  it('control: on must name a scope; after needs on', async () => {
    expect((await fault({ network: 'x', fault: 'duplicate', on: 'quote' })).status).toBe(400);
    expect((await fault({ network: 'x', fault: 'duplicate', after: 2 })).status).toBe(400);
    expect((await fault({ network: 'x', fault: 'duplicate', on: 'reply', after: -1 })).status).toBe(400);
    const armed = await fault({ network: 'instagram', fault: 'server_error', on: 'comment', after: 2 });
    expect(armed.body.pending).toEqual([
      { network: 'instagram', fault: 'pass', remaining: 2, on: 'comment' },
      { network: 'instagram', fault: 'server_error', remaining: 1, on: 'comment' },
    ]);
  });

  it('Instagram: comments under a published media, listed oldest first; a comment fault leaves the media alone', async () => {
    const ig = '17841400000000077';
    const token = 'byok-ig-token';
    const container = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/image.jpg'), caption: 'captioned', access_token: token });
    await request(app).get(`/facebook/v25.0/${container.body.id}`).query({ access_token: token });
    // Armed for comments: the publish goes through, the first comment is refused, the second made.
    await fault({ network: 'instagram', fault: 'duplicate', on: 'comment' }).expect(201);
    const published = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(published.status).toBe(200);
    const refused = await request(app)
      .post(`/facebook/v25.0/${published.body.id}/comments`)
      .query({ message: 'first!', access_token: token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual(expect.objectContaining({ code: 506 }));
    const comment = await request(app)
      .post(`/facebook/v25.0/${published.body.id}/comments`)
      .query({ message: 'first!', access_token: token });
    expect(comment.body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    await request(app)
      .post(`/facebook/v25.0/${published.body.id}/comments`)
      .query({ message: 'second', access_token: token })
      .expect(200);
    const list = await request(app)
      .get(`/facebook/v25.0/${published.body.id}/comments`)
      .query({ fields: 'id,text,timestamp', limit: 1, access_token: token });
    expect(list.body.data).toEqual([
      { id: comment.body.id, text: 'first!', timestamp: expect.stringMatching(/\+0000$/) },
    ]);
    const next = await request(app).get(
      new URL(list.body.paging.next as string).pathname + new URL(list.body.paging.next as string).search,
    );
    expect(next.body.data).toEqual([expect.objectContaining({ text: 'second' })]);
    expect(next.body.paging.next).toBeUndefined();
    const missing = await request(app)
      .post('/facebook/v25.0/17999999999999999/comments')
      .query({ message: 'x', access_token: token });
    expect(missing.body.error).toEqual(expect.objectContaining({ code: 100, error_subcode: 33 }));
    const recorded = await request(app).get('/__sandbox/comments?network=instagram');
    expect(recorded.body.comments).toEqual([
      expect.objectContaining({ network: 'instagram', post_id: published.body.id, account: ig, text: 'first!' }),
      expect.objectContaining({ text: 'second' }),
    ]);
  });

  it('Facebook: a Page comments on its own post with its Page token; lost_response on a comment drops the answer', async () => {
    const token = 'byok-fb-user';
    const accounts = await request(app).get('/facebook/v25.0/me/accounts').set('Authorization', `Bearer ${token}`);
    const page = accounts.body.data[0] as { id: string; access_token: string };
    const post = await request(app)
      .post(`/facebook/v25.0/${page.id}/feed`)
      .send({ message: 'page post', access_token: page.access_token });
    await fault({ network: 'facebook', fault: 'lost_response', on: 'comment' }).expect(201);
    await expect(
      request(app)
        .post(`/facebook/v25.0/${post.body.id}/comments`)
        .send({ message: 'hi', access_token: page.access_token }),
    ).rejects.toThrow();
    const list = await request(app)
      .get(`/facebook/v25.0/${post.body.id}/comments`)
      .query({ access_token: page.access_token });
    expect(list.body.data).toEqual([
      {
        id: expect.stringMatching(/^\d+_\d+$/),
        message: 'hi',
        created_time: expect.any(String),
        from: { id: page.id, name: expect.any(String) },
      },
    ]);
  });

  it('LinkedIn: comments under a post (201 with the comment), as the actor only; a fault armed on comments', async () => {
    const version = new Date().toISOString().slice(0, 7).replace('-', '');
    const headers = {
      Authorization: 'Bearer byok-li',
      'LinkedIn-Version': version,
      'X-Restli-Protocol-Version': '2.0.0',
    };
    const person = `urn:li:person:${(await request(app).get('/linkedin/v2/userinfo').set(headers)).body.sub as string}`;
    const post = await request(app)
      .post('/linkedin/rest/posts')
      .set(headers)
      .send({
        author: person,
        commentary: 'li post',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED' },
        lifecycleState: 'PUBLISHED',
      });
    const urn = post.headers['x-restli-id'] as string;
    const path = `/linkedin/rest/socialActions/${encodeURIComponent(urn)}/comments`;
    const comment = await request(app)
      .post(path)
      .set(headers)
      .send({ actor: person, object: urn, message: { text: 'first comment' } });
    expect(comment.status).toBe(201);
    expect(comment.body).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^\d+$/),
        commentUrn: `urn:li:comment:(${urn},${comment.body.id as string})`,
        actor: person,
        object: urn,
        message: { text: 'first comment' },
      }),
    );
    expect(comment.headers['x-restli-id']).toBe(comment.body.commentUrn);
    const foreign = await request(app)
      .post(path)
      .set(headers)
      .send({ actor: 'urn:li:person:someoneelse', object: urn, message: { text: 'x' } });
    expect(foreign.status).toBe(403);
    const list = await request(app).get(path).set(headers);
    expect(list.body).toEqual({
      elements: [expect.objectContaining({ id: comment.body.id, message: { text: 'first comment' } })],
      paging: { start: 0, count: 10, links: [], total: 1 },
    });
    await fault({ network: 'linkedin', fault: 'server_error', on: 'comment' }).expect(201);
    const failing = await request(app)
      .post(path)
      .set(headers)
      .send({ actor: person, object: urn, message: { text: 'again' } });
    expect(failing.status).toBe(500);
    const unknown = await request(app)
      .post(`/linkedin/rest/socialActions/${encodeURIComponent('urn:li:share:1')}/comments`)
      .set(headers)
      .send({ actor: person, message: { text: 'x' } });
    expect(unknown.status).toBe(404);
  });
});

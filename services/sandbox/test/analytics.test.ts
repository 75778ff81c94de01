import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { mediaHost, settle } from './support/media.ts';

// Analytics reads in the networks' own shapes (docs/networks.md §1.5, §2.5, §3.5): the rules a client
// trips over in production (per-product-type metrics, retired metrics, owner-only fields, limits).
describe('sandbox analytics endpoints', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  const ig = '17841400000000077';
  const token = 'byok-analytics-token';
  let media: Awaited<ReturnType<typeof mediaHost>>;
  beforeAll(async () => {
    media = await mediaHost();
  });
  afterAll(async () => media.close());
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const setMetrics = (network: string, postId: string, metrics: Record<string, unknown>) =>
    request(app).post('/__sandbox/metrics').send({ network, post_id: postId, metrics }).expect(204);

  /** Publishes one Instagram media of the given kind and returns its id. */
  async function igMedia(params: Record<string, string>): Promise<string> {
    const container = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ ...params, access_token: token });
    expect(container.status).toBe(200);
    await settle();
    for (let i = 0; i < 3; i += 1)
      await request(app)
        .get(`/facebook/v25.0/${container.body.id}`)
        .query({ fields: 'status_code', access_token: token });
    const published = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(published.status).toBe(200);
    return published.body.id as string;
  }
  const insights = (id: string, metric: string) =>
    request(app).get(`/facebook/v25.0/${id}/insights`).query({ metric, access_token: token });

  it('Instagram: metrics per product type; one invalid or retired metric fails the whole call (#100)', async () => {
    const feed = await igMedia({ image_url: media.url('/image.jpg') });
    const reel = await igMedia({ media_type: 'REELS', video_url: media.url('/video.mp4') });
    const story = await igMedia({ media_type: 'STORIES', image_url: media.url('/image.jpg') });
    for (const id of [feed, reel, story])
      await setMetrics('instagram', id, { views: 100, reach: 50, likes: 10, comments: 2, shares: 1, saved: 4 });
    expect(
      (await request(app).get(`/facebook/v25.0/${reel}`).query({ fields: 'media_product_type', access_token: token }))
        .body.media_product_type,
    ).toBe('REELS');

    const ok = await insights(feed, 'views,reach,likes,comments,shares,saved,total_interactions');
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual(
      expect.arrayContaining([
        {
          name: 'likes',
          period: 'lifetime',
          values: [{ value: 10 }],
          title: 'Likes',
          description: expect.any(String),
          id: `${feed}/insights/likes/lifetime`,
        },
        expect.objectContaining({ name: 'total_interactions', values: [{ value: 17 }] }),
      ]),
    );
    expect((await insights(reel, 'views,ig_reels_avg_watch_time')).status).toBe(200);
    const reelOnFeed = await insights(feed, 'views,ig_reels_avg_watch_time');
    expect(reelOnFeed.status).toBe(400);
    expect(reelOnFeed.body.error).toEqual(
      expect.objectContaining({ code: 100, message: expect.stringContaining('metric[1] must be one of') }),
    );
    expect((await insights(story, 'views,reach,shares')).status).toBe(200);
    const likesOnStory = await insights(story, 'views,reach,likes');
    expect(likesOnStory.status).toBe(400);
    expect(likesOnStory.body.error.code).toBe(100);
    expect((await insights(feed, 'impressions')).body.error.code).toBe(100);
  });

  it('Instagram: low-reach media answer "(#10) Not enough viewers"', async () => {
    const feed = await igMedia({ image_url: media.url('/image.jpg') });
    await setMetrics('instagram', feed, { reach: 3, likes: 1 });
    const res = await insights(feed, 'views,reach');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 10,
        message: '(#10) Not enough viewers for the media to show insights',
        type: 'OAuthException',
      }),
    );
  });

  it('Facebook: retired post metrics are invalid; reactions come by type; video posts have video_insights', async () => {
    // A Page token only for a Page the user manages: the one /me/accounts lists.
    const pageId = (await request(app).get('/facebook/v25.0/me/accounts').query({ access_token: token })).body.data[0]
      .id as string;
    expect(
      (await request(app).get('/facebook/v25.0/123').query({ fields: 'access_token', access_token: token })).body.error
        .code,
    ).toBe(200);
    const pageToken = (
      await request(app).get(`/facebook/v25.0/${pageId}`).query({ fields: 'access_token', access_token: token })
    ).body.access_token as string;
    const post = await request(app)
      .post(`/facebook/v25.0/${pageId}/feed`)
      .send({ message: 'metrics', access_token: pageToken });
    await setMetrics('facebook', post.body.id, {
      post_clicks: 9,
      post_reactions_by_type_total: { like: 3, love: 1 },
      post_engaged_users: 50,
    });
    const retired = await request(app)
      .get(`/facebook/v25.0/${post.body.id}/insights`)
      .query({ metric: 'post_engaged_users,post_clicks', access_token: pageToken });
    expect(retired.status).toBe(400);
    expect(retired.body.error).toEqual(
      expect.objectContaining({ code: 100, message: '(#100) The value must be a valid insights metric' }),
    );
    const served = await request(app)
      .get(`/facebook/v25.0/${post.body.id}/insights`)
      .query({ metric: 'post_clicks,post_reactions_by_type_total', access_token: pageToken });
    expect(served.body.data.map((item: { name: string; values: unknown[] }) => [item.name, item.values])).toEqual([
      ['post_clicks', [{ value: 9 }]],
      ['post_reactions_by_type_total', [{ value: { like: 3, love: 1 } }]],
    ]);
    expect(
      (
        await request(app)
          .get(`/facebook/v25.0/${post.body.id}`)
          .query({ fields: 'id,attachments{media_type,target}', access_token: pageToken })
      ).body,
    ).toEqual({ id: post.body.id, attachments: { data: [] } });

    const video = await request(app)
      .post(`/facebook/v25.0/${pageId}/videos`)
      .send({ file_url: media.url('/video.mp4'), description: 'v', access_token: pageToken });
    const videoPost = `${pageId}_${video.body.id as string}`;
    await setMetrics('facebook', videoPost, { post_clicks: 2, post_reactions_by_type_total: { like: 5, haha: 2 } });
    const attachments = await request(app)
      .get(`/facebook/v25.0/${videoPost}`)
      .query({ fields: 'id,attachments{media_type,target}', access_token: pageToken });
    expect(attachments.body.attachments.data).toEqual([
      { media_type: 'video', target: { id: video.body.id, url: expect.any(String) } },
    ]);
    const videoInsights = await request(app)
      .get(`/facebook/v25.0/${video.body.id}/video_insights`)
      .query({ metric: 'total_video_reactions_by_type_total', access_token: pageToken });
    expect(videoInsights.body.data[0]).toEqual(
      expect.objectContaining({
        name: 'total_video_reactions_by_type_total',
        values: [{ value: { like: 5, haha: 2 } }],
      }),
    );
  });

  it('X: batch lookup; owner-only metrics for the owner only; the 15-minute window is enforced with 429', async () => {
    const created = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', 'Bearer owner-token')
      .send({ text: 'analytics on x' });
    const id = created.body.data.id as string;
    await setMetrics('x', id, { impression_count: 50, like_count: 5, url_link_clicks: 2 });
    const fields = 'public_metrics,non_public_metrics,organic_metrics';
    const own = await request(app)
      .get('/x/2/tweets')
      .query({ ids: `${id},123`, 'tweet.fields': fields })
      .set('Authorization', 'Bearer owner-token');
    expect(own.status).toBe(200);
    expect(own.body.data[0]).toEqual(
      expect.objectContaining({
        id,
        public_metrics: expect.objectContaining({ like_count: 5, impression_count: 50 }),
        non_public_metrics: expect.objectContaining({ url_link_clicks: 2 }),
      }),
    );
    expect(own.body.errors).toEqual([
      expect.objectContaining({ resource_id: '123', type: 'https://api.x.com/2/problems/resource-not-found' }),
    ]);
    expect(own.headers['x-rate-limit-limit']).toBe('900');
    const other = await request(app)
      .get('/x/2/tweets')
      .query({ ids: id, 'tweet.fields': fields })
      .set('Authorization', 'Bearer someone-else');
    expect(other.body.data[0].non_public_metrics).toBeUndefined();
    expect(other.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'https://api.x.com/2/problems/not-authorized-for-field',
          field: 'non_public_metrics',
        }),
      ]),
    );

    let last = other;
    for (let i = 0; i < 899; i += 1)
      last = await request(app).get('/x/2/tweets').query({ ids: id }).set('Authorization', 'Bearer someone-else');
    expect(last.status).toBe(200);
    expect(last.headers['x-rate-limit-remaining']).toBe('0');
    const limited = await request(app)
      .get('/x/2/tweets')
      .query({ ids: id })
      .set('Authorization', 'Bearer someone-else');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['x-rate-limit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });
});

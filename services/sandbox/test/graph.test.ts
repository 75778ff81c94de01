import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { mediaHost, settle } from './support/media.ts';

// Shapes from docs/networks.md §1-§2 (Graph API): the sandbox must not be friendlier than the real API.
describe('sandbox /facebook (Graph API)', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  let media: Awaited<ReturnType<typeof mediaHost>>;
  beforeAll(async () => {
    media = await mediaHost();
  });
  afterAll(async () => media.close());
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const graphError = expect.objectContaining({
    message: expect.any(String),
    type: expect.any(String),
    code: expect.any(Number),
    fbtrace_id: expect.any(String),
  });

  async function userToken(): Promise<string> {
    const dialog = await request(app).get('/facebook/v25.0/dialog/oauth').query({
      client_id: 'app1',
      redirect_uri: 'https://app.example.com/cb',
      state: 's1',
      scope: 'pages_manage_posts',
    });
    expect(dialog.status).toBe(302);
    const location = new URL(dialog.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://app.example.com/cb');
    expect(location.searchParams.get('state')).toBe('s1');
    const code = location.searchParams.get('code');
    const token = await request(app)
      .get('/facebook/v25.0/oauth/access_token')
      .query({ client_id: 'app1', client_secret: 'sec', redirect_uri: 'https://app.example.com/cb', code });
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^EAAB/),
      token_type: 'bearer',
      expires_in: expect.any(Number),
    });
    return token.body.access_token as string;
  }

  it('OAuth: code is single use and bound to redirect_uri; errors in Graph shape', async () => {
    const dialog = await request(app)
      .get('/facebook/v21.0/dialog/oauth')
      .query({ client_id: 'a', redirect_uri: 'https://x.example/cb', state: 'z' });
    const code = new URL(dialog.headers.location as string).searchParams.get('code');
    const wrongRedirect = await request(app)
      .get('/facebook/v21.0/oauth/access_token')
      .query({ client_id: 'a', client_secret: 's', redirect_uri: 'https://other/cb', code });
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.body.error).toEqual(
      expect.objectContaining({
        code: 100,
        error_subcode: 36008,
        type: 'OAuthException',
        fbtrace_id: expect.any(String),
      }),
    );
    const long = await request(app)
      .get('/facebook/v21.0/oauth/access_token')
      .query({
        grant_type: 'fb_exchange_token',
        client_id: 'a',
        client_secret: 's',
        fb_exchange_token: await userToken(),
      });
    expect(long.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 5183944 });
  });

  it('accepts any vNN.0 version, sends x-app-usage and facebook-api-version, rejects invalid_ tokens with 190', async () => {
    const me = await request(app).get('/facebook/v19.0/me').set('Authorization', 'Bearer byok-token');
    expect(me.status).toBe(200);
    expect(me.headers['facebook-api-version']).toBe('v19.0');
    expect(JSON.parse(me.headers['x-app-usage'] as string)).toEqual({
      call_count: expect.any(Number),
      total_cputime: expect.any(Number),
      total_time: expect.any(Number),
    });
    const bad = await request(app).get('/facebook/v25.0/me').query({ access_token: 'invalid_abc' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: expect.objectContaining({ code: 190, type: 'OAuthException' }) });
    const none = await request(app).get('/facebook/v25.0/me');
    expect(none.body.error.code).toBe(2500);
  });

  it('Pages: /me/accounts gives page tokens; a user token cannot post to a page (#200); feed ids are {page}_{post}', async () => {
    const token = await userToken();
    const accounts = await request(app).get('/facebook/v25.0/me/accounts').set('Authorization', `Bearer ${token}`);
    const page = accounts.body.data[0] as {
      id: string;
      access_token: string;
      instagram_business_account: { id: string };
    };
    expect(page).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^\d+$/),
        access_token: expect.any(String),
        instagram_business_account: { id: expect.stringMatching(/^1784/), username: expect.any(String) },
      }),
    );
    const asUser = await request(app)
      .post(`/facebook/v25.0/${page.id}/feed`)
      .set('Authorization', `Bearer ${token}`)
      .send({ message: 'hi' });
    expect(asUser.status).toBe(403);
    expect(asUser.body.error).toEqual(expect.objectContaining({ code: 200 }));
    const post = await request(app)
      .post(`/facebook/v25.0/${page.id}/feed`)
      .query({ fields: 'id,permalink_url' })
      .type('form')
      .send({ message: 'hello', access_token: page.access_token });
    expect(post.status).toBe(200);
    expect(post.body).toEqual({
      id: expect.stringMatching(new RegExp(`^${page.id}_\\d+$`)),
      permalink_url: expect.stringMatching(/^https:\/\/www\.facebook\.com\//),
    });
    expect(JSON.parse(post.headers['x-business-use-case-usage'] as string)).toEqual({
      [page.id]: [expect.objectContaining({ type: 'pages', estimated_time_to_regain_access: 0 })],
    });
    const dup = await request(app)
      .post(`/facebook/v25.0/${page.id}/feed`)
      .send({ message: 'hello', access_token: page.access_token });
    expect(dup.body.error).toEqual(expect.objectContaining({ code: 506 }));
  });

  it('Pages: photo {id, post_id}; unpublished photos attach to a feed post; videos process asynchronously', async () => {
    const pageToken = 'byok-page-token';
    const photo = await request(app)
      .post('/facebook/v25.0/123/photos')
      .send({ url: media.url('/image.jpg'), caption: 'c', access_token: pageToken });
    expect(photo.body).toEqual({ id: expect.stringMatching(/^\d+$/), post_id: expect.stringMatching(/^123_\d+$/) });
    const hidden = await request(app)
      .post('/facebook/v25.0/123/photos')
      .send({ url: media.url('/image.png'), published: false, access_token: pageToken });
    expect(hidden.body).toEqual({ id: expect.any(String) });
    const feed = await request(app)
      .post('/facebook/v25.0/123/feed')
      .send({ message: 'two', attached_media: [{ media_fbid: hidden.body.id }], access_token: pageToken });
    expect(feed.body.id).toMatch(/^123_/);
    const broken = await request(app)
      .post('/facebook/v25.0/123/photos')
      .send({ url: media.url('/nope.jpg'), access_token: pageToken });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toEqual(expect.objectContaining({ code: 100, error_subcode: 2069019 }));
    const video = await request(app)
      .post('/facebook/v25.0/123/videos')
      .send({ file_url: media.url('/video.mp4'), description: 'v', access_token: pageToken });
    await settle();
    const first = await request(app)
      .get(`/facebook/v25.0/${video.body.id}`)
      .query({ fields: 'status', access_token: pageToken });
    expect(first.body.status.video_status).toBe('processing');
    const second = await request(app)
      .get(`/facebook/v25.0/${video.body.id}`)
      .query({ fields: 'status', access_token: pageToken });
    expect(second.body.status.video_status).toBe('ready');
  });

  it('Instagram: container IN_PROGRESS then FINISHED; early publish is 9007/2207027; media_publish then permalink', async () => {
    const ig = '17841400000000077';
    const token = 'byok-ig-token';
    const container = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/image.jpg'), caption: 'hi', access_token: token });
    expect(container.body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    const early = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(early.status).toBe(400);
    expect(early.body.error).toEqual(
      expect.objectContaining({
        message: 'Media ID is not available',
        type: 'OAuthException',
        code: 9007,
        error_subcode: 2207027,
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      }),
    );
    const status1 = await request(app)
      .get(`/facebook/v25.0/${container.body.id}`)
      .query({ fields: 'status_code,status', access_token: token });
    expect(status1.body).toEqual({ status_code: 'IN_PROGRESS', id: container.body.id });
    const status2 = await request(app)
      .get(`/facebook/v25.0/${container.body.id}`)
      .query({ fields: 'status_code', access_token: token });
    expect(status2.body.status_code).toBe('FINISHED');
    const published = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(published.body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    const again = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(again.status).toBe(400);
    const item = await request(app)
      .get(`/facebook/v25.0/${published.body.id}`)
      .query({ fields: 'id,permalink', access_token: token });
    expect(item.body.permalink).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    const limit = await request(app)
      .get(`/facebook/v25.0/${ig}/content_publishing_limit`)
      .query({ fields: 'quota_usage,config', access_token: token });
    expect(limit.body).toEqual({ data: [{ quota_usage: 1, config: { quota_total: 100, quota_duration: 86400 } }] });
  });

  it('Instagram: carousel children need is_carousel_item; single VIDEO is refused (use REELS); broken URL is 9004/2207052', async () => {
    const token = 'byok-ig';
    const ig = '17841400000000078';
    const plain = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/image.jpg'), access_token: token });
    const child = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/image.jpg'), is_carousel_item: true, access_token: token });
    const bad = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ media_type: 'CAROUSEL', children: `${plain.body.id},${child.body.id}`, access_token: token });
    expect(bad.body.error).toEqual(expect.objectContaining({ code: 100, error_subcode: 2207028 }));
    const video = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ media_type: 'VIDEO', video_url: media.url('/video.mp4'), access_token: token });
    expect(video.body.error).toEqual(expect.objectContaining({ code: 100, error_subcode: 2207023 }));
    const broken = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/404.jpg'), access_token: token });
    expect(broken.body.error).toEqual(
      expect.objectContaining({
        message: 'Only photo or video can be accepted as media type.',
        code: 9004,
        error_subcode: 2207052,
        is_transient: false,
        error_user_title: "Media download has failed. The media URI doesn't meet our requirements.",
        error_user_msg: expect.stringContaining(
          `The media could not be fetched from this URI: ${media.url('/404.jpg')}`,
        ),
      }),
    );
    const reel = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ media_type: 'REELS', video_url: media.url('/404.mp4'), access_token: token });
    await settle();
    await request(app).get(`/facebook/v25.0/${reel.body.id}`).query({ access_token: token });
    const failed = await request(app)
      .get(`/facebook/v25.0/${reel.body.id}`)
      .query({ fields: 'status_code,status', access_token: token });
    expect(failed.body).toEqual({
      status_code: 'ERROR',
      status: 'Error: Media upload has failed with error code 2207052',
      id: reel.body.id,
    });
  });

  it('Instagram: an image that stops being served after the container was created ends it ERROR 2207052, never FINISHED', async () => {
    const token = 'byok-ig';
    const ig = '17841400000000080';
    const container = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/once/gone.jpg'), caption: 'gone', access_token: token });
    expect(container.body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    const status = () =>
      request(app)
        .get(`/facebook/v25.0/${container.body.id}`)
        .query({ fields: 'status_code,status', access_token: token });
    expect((await status()).body.status_code).toBe('IN_PROGRESS');
    const failed = {
      status_code: 'ERROR',
      status: 'Error: Media upload has failed with error code 2207052',
      id: container.body.id,
    };
    expect((await status()).body).toEqual(failed);
    expect((await status()).body).toEqual(failed);
    const publish = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    expect(publish.body.error).toEqual(expect.objectContaining({ code: 9007 }));
    // A carousel with such a child fails as a whole.
    const child = (name: string) =>
      request(app)
        .post(`/facebook/v25.0/${ig}/media`)
        .query({ image_url: media.url(name), is_carousel_item: true, access_token: token });
    const kept = await child('/image.jpg');
    const lost = await child('/once/child.jpg');
    const carousel = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ media_type: 'CAROUSEL', children: `${kept.body.id},${lost.body.id}`, access_token: token });
    const carouselStatus = () =>
      request(app)
        .get(`/facebook/v25.0/${carousel.body.id}`)
        .query({ fields: 'status_code,status', access_token: token });
    await carouselStatus();
    await carouselStatus();
    expect((await carouselStatus()).body).toEqual({
      status_code: 'ERROR',
      status: 'Error: Media upload has failed with error code 2207028',
      id: carousel.body.id,
    });
    expect(await request(app).get('/__sandbox/posts').query({ network: 'instagram' })).toMatchObject({
      body: { posts: [] },
    });
  });

  it('insights: canonical data shape; deprecated metrics fail with (#100); reactions by type as an object', async () => {
    const token = 'byok-ig';
    const ig = '17841400000000079';
    const container = await request(app)
      .post(`/facebook/v25.0/${ig}/media`)
      .query({ image_url: media.url('/image.jpg'), access_token: token });
    await request(app).get(`/facebook/v25.0/${container.body.id}`).query({ access_token: token });
    await request(app).get(`/facebook/v25.0/${container.body.id}`).query({ access_token: token });
    const published = await request(app)
      .post(`/facebook/v25.0/${ig}/media_publish`)
      .query({ creation_id: container.body.id, access_token: token });
    await request(app)
      .post('/__sandbox/metrics')
      .send({ network: 'instagram', post_id: published.body.id, metrics: { reach: 12 } })
      .expect(204);
    const insights = await request(app)
      .get(`/facebook/v25.0/${published.body.id}/insights`)
      .query({ metric: 'reach,views', access_token: token });
    expect(insights.body.data[0]).toEqual({
      name: 'reach',
      period: 'lifetime',
      values: [{ value: 12 }],
      title: expect.any(String),
      description: expect.any(String),
      id: `${published.body.id}/insights/reach/lifetime`,
    });
    const deprecated = await request(app)
      .get(`/facebook/v25.0/${published.body.id}/insights`)
      .query({ metric: 'impressions', access_token: token });
    expect(deprecated.body.error.code).toBe(100);

    const post = await request(app).post('/facebook/v25.0/555/feed').send({ message: 'm', access_token: token });
    await request(app)
      .post('/__sandbox/metrics')
      .send({
        network: 'facebook',
        post_id: post.body.id,
        metrics: { post_reactions_by_type_total: { like: 2, love: 1 } },
      });
    const fb = await request(app)
      .get(`/facebook/v25.0/${post.body.id}/insights`)
      .query({ metric: 'post_reactions_by_type_total', access_token: token });
    expect(fb.body.data[0].values).toEqual([{ value: { like: 2, love: 1 } }]);
  });

  it('faults answer in Graph shape: throttling with BUC header, 500 transient, 190/463, 506, 190/458 that lasts', async () => {
    const fault = (network: string, kind: string) =>
      request(app)
        .post('/__sandbox/faults')
        .send({ network, fault: kind, count: 1, retry_after_seconds: 120 })
        .expect(201);
    await fault('facebook', 'rate_limit');
    const limited = await request(app).post('/facebook/v25.0/42/feed').send({ message: 'x', access_token: 't' });
    expect(limited.status).toBe(400);
    expect(limited.body.error).toEqual(expect.objectContaining({ code: 80001, type: 'OAuthException' }));
    expect(JSON.parse(limited.headers['x-business-use-case-usage'] as string)).toEqual({
      42: [expect.objectContaining({ type: 'pages', call_count: 100, estimated_time_to_regain_access: 2 })],
    });
    await fault('instagram', 'rate_limit');
    const igLimited = await request(app).post('/facebook/v25.0/1784/media').send({ access_token: 't' });
    expect(igLimited.body.error.code).toBe(80002);
    await fault('facebook', 'server_error');
    const down = await request(app).post('/facebook/v25.0/42/feed').send({ message: 'x', access_token: 't' });
    expect(down.status).toBe(500);
    expect(down.body.error).toEqual(graphError);
    expect(down.body.error.is_transient).toBe(true);
    await fault('facebook', 'token_expired');
    expect(
      (await request(app).post('/facebook/v25.0/42/feed').send({ message: 'x', access_token: 't' })).body.error,
    ).toEqual(expect.objectContaining({ code: 190, error_subcode: 463 }));
    await fault('facebook', 'duplicate');
    expect(
      (await request(app).post('/facebook/v25.0/42/feed').send({ message: 'y', access_token: 't' })).body.error,
    ).toEqual(expect.objectContaining({ code: 506 }));
    expect((await request(app).post('/facebook/v25.0/42/feed').send({ message: 'z', access_token: 't' })).status).toBe(
      200,
    );
    // Revocation is real: the token stays refused once the fault is spent.
    await fault('facebook', 'token_revoked');
    for (const message of ['x', 'after the fault']) {
      expect(
        (await request(app).post('/facebook/v25.0/42/feed').send({ message, access_token: 't' })).body.error,
      ).toEqual(expect.objectContaining({ code: 190, error_subcode: 458 }));
    }
  });
});

import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { JPEG, MP4 } from './support/media.ts';

// Shapes from docs/networks.md §4 (LinkedIn Posts API, OAuth, errors).
describe('sandbox /linkedin', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  const version = new Date().toISOString().slice(0, 7).replace('-', '');
  const token = 'byok-li-token';
  const headers = {
    Authorization: `Bearer ${token}`,
    'LinkedIn-Version': version,
    'X-Restli-Protocol-Version': '2.0.0',
  };
  let person: string;
  beforeEach(async () => {
    await request(app).post('/__sandbox/reset').expect(204);
    person = `urn:li:person:${(await request(app).get('/linkedin/v2/userinfo').set('Authorization', `Bearer ${token}`)).body.sub as string}`;
  });

  const post = (body: Record<string, unknown>) =>
    request(app)
      .post('/linkedin/rest/posts')
      .set(headers)
      .send({
        author: person,
        commentary: 'Hello',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
        lifecycleState: 'PUBLISHED',
        isReshareDisabledByAuthor: false,
        ...body,
      });

  it('OAuth: 60-day token, 365-day refresh token, comma-separated scope, id_token with openid; refresh does not rotate', async () => {
    const authorize = await request(app).get('/linkedin/oauth/v2/authorization').query({
      response_type: 'code',
      client_id: 'c',
      redirect_uri: 'https://a/cb',
      state: 's',
      scope: 'openid profile w_member_social',
    });
    expect(authorize.status).toBe(302);
    const code = new URL(authorize.headers.location as string).searchParams.get('code');
    const token = await request(app).post('/linkedin/oauth/v2/accessToken').type('form').send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://a/cb',
      client_id: 'c',
      client_secret: 's',
    });
    expect(token.body).toEqual({
      access_token: expect.any(String),
      expires_in: 5184000,
      refresh_token: expect.any(String),
      refresh_token_expires_in: 31536000,
      scope: 'openid,profile,w_member_social',
      token_type: 'Bearer',
      id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    const refreshed = await request(app).post('/linkedin/oauth/v2/accessToken').type('form').send({
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token,
      client_id: 'c',
      client_secret: 's',
    });
    expect(refreshed.body.refresh_token).toBe(token.body.refresh_token);
    expect(refreshed.body.refresh_token_expires_in).toBeLessThanOrEqual(31536000);
    const introspect = await request(app)
      .post('/linkedin/oauth/v2/introspectToken')
      .type('form')
      .send({ token: refreshed.body.access_token, client_id: 'c', client_secret: 's' });
    expect(introspect.body).toEqual(expect.objectContaining({ active: true, status: 'active', auth_type: '3L' }));
    const bad = await request(app)
      .post('/linkedin/oauth/v2/accessToken')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'c', client_secret: 's' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
  });

  it('posts: LinkedIn-Version required; 201 with empty body and x-restli-id', async () => {
    const noVersion = await request(app).post('/linkedin/rest/posts').set('Authorization', `Bearer ${token}`).send({});
    expect(noVersion.status).toBe(400);
    expect(noVersion.body).toEqual(expect.objectContaining({ status: 400, code: 'VERSION_MISSING' }));
    const sunset = await request(app)
      .post('/linkedin/rest/posts')
      .set({ ...headers, 'LinkedIn-Version': '202301' })
      .send({});
    expect(sunset.status).toBe(426);
    const created = await post({});
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    expect(created.headers['x-restli-id']).toMatch(/^urn:li:share:\d+$/);
    const duplicate = await post({});
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.errorDetails.inputErrors[0].code).toBe('DUPLICATE_POST');
    const missing = await request(app).post('/linkedin/rest/posts').set(headers).send({ commentary: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain(
      'ERROR :: /author :: field is required but not found and has no default value',
    );
  });

  it('unescaped reserved characters cut the commentary, as on LinkedIn', async () => {
    await post({ commentary: 'Before (after' });
    await post({ commentary: 'Safe \\(kept\\)' });
    const posts = (await request(app).get('/__sandbox/posts').query({ network: 'linkedin' })).body.posts as {
      text: string;
    }[];
    expect(posts.map((item) => item.text)).toEqual(['Before ', 'Safe (kept)']);
  });

  it('hashtags and mentions are little-text elements: #tag links, \\#tag is plain text', async () => {
    await post({
      commentary: 'Go #launch and {hashtag|\\#|News} with @[Devtestco](urn:li:organization:2414183) \\#plain',
    });
    const [rendered] = (await request(app).get('/__sandbox/posts').query({ network: 'linkedin' })).body.posts as {
      text: string;
      options: { hashtags: string[]; mentions: string[] };
    }[];
    expect(rendered!.text).toBe('Go #launch and #News with @[Devtestco](urn:li:organization:2414183) #plain');
    expect(rendered!.options.hashtags).toEqual(['launch', 'News']);
    expect(rendered!.options.mentions).toEqual(['urn:li:organization:2414183']);
  });

  it('images: initializeUpload -> PUT -> AVAILABLE; videos: parts with ETags -> finalize -> PROCESSING -> AVAILABLE', async () => {
    const image = await request(app)
      .post('/linkedin/rest/images')
      .query({ action: 'initializeUpload' })
      .set(headers)
      .send({ initializeUploadRequest: { owner: person } });
    expect(image.body.value).toEqual({
      uploadUrlExpiresAt: expect.any(Number),
      uploadUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4010\/linkedin\/dms-uploads\//),
      image: expect.stringMatching(/^urn:li:image:/),
    });
    const uploadPath = new URL(image.body.value.uploadUrl as string).pathname;
    expect(
      (
        await request(app)
          .put(uploadPath)
          .set('Authorization', `Bearer ${token}`)
          .type('application/octet-stream')
          .send(JPEG)
      ).status,
    ).toBe(201);
    const video = await request(app)
      .post('/linkedin/rest/videos')
      .query({ action: 'initializeUpload' })
      .set(headers)
      .send({
        initializeUploadRequest: {
          owner: person,
          fileSizeBytes: MP4.length,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      });
    const { uploadInstructions, video: urn } = video.body.value as {
      uploadInstructions: { uploadUrl: string; firstByte: number; lastByte: number }[];
      video: string;
    };
    expect(uploadInstructions).toEqual([{ uploadUrl: expect.any(String), firstByte: 0, lastByte: MP4.length - 1 }]);
    const part = await request(app)
      .put(new URL(uploadInstructions[0]!.uploadUrl).pathname)
      .set('Authorization', `Bearer ${token}`)
      .type('application/octet-stream')
      .send(MP4);
    expect(part.headers.etag).toBeDefined();
    await request(app)
      .post('/linkedin/rest/videos')
      .query({ action: 'finalizeUpload' })
      .set(headers)
      .send({ finalizeUploadRequest: { video: urn, uploadToken: '', uploadedPartIds: [part.headers.etag] } })
      .expect(200);
    const early = await post({ commentary: 'v', content: { media: { id: urn, title: 't' } } });
    expect(early.status).toBe(400);
    expect(
      (
        await request(app)
          .get(`/linkedin/rest/videos/${encodeURIComponent(urn)}`)
          .set(headers)
      ).body.status,
    ).toBe('PROCESSING');
    expect(
      (
        await request(app)
          .get(`/linkedin/rest/videos/${encodeURIComponent(urn)}`)
          .set(headers)
      ).body.status,
    ).toBe('AVAILABLE');
    const posted = await post({ commentary: 'v', content: { media: { id: urn, title: 't' } } });
    expect(posted.headers['x-restli-id']).toMatch(/^urn:li:ugcPost:/);
  });

  it('statistics shapes for organizations and members', async () => {
    await request(app)
      .post('/__sandbox/metrics')
      .send({
        network: 'linkedin',
        post_id: 'urn:li:share:1000000',
        metrics: { share_statistics_impression_count: 9, share_statistics_like_count: 2 },
      });
    const org = await request(app)
      .get(
        '/linkedin/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=urn%3Ali%3Aorganization%3A2414183&shares=List(urn%3Ali%3Ashare%3A1000000)',
      )
      .set(headers);
    expect(org.body).toEqual({
      paging: { count: 10, start: 0, links: [] },
      elements: [
        {
          totalShareStatistics: {
            uniqueImpressionsCount: 0,
            shareCount: 0,
            engagement: 0,
            clickCount: 0,
            likeCount: 2,
            impressionCount: 9,
            commentCount: 0,
          },
          share: 'urn:li:share:1000000',
          organizationalEntity: 'urn:li:organization:2414183',
        },
      ],
    });
    const member = await request(app)
      .get(
        '/linkedin/rest/memberCreatorPostAnalytics?q=entity&entity=(share:urn%3Ali%3Ashare%3A1000000)&queryType=IMPRESSION&aggregation=TOTAL',
      )
      .set(headers);
    expect(member.body.elements).toEqual([
      { count: 9, metricType: 'IMPRESSION', targetEntity: { share: 'urn:li:share:1000000' } },
    ]);
  });

  it('faults in LinkedIn shape: 429 without headers, 500, 401 EXPIRED, 422 duplicate, 401 REVOKED that lasts', async () => {
    const arm = (fault: string) =>
      request(app).post('/__sandbox/faults').send({ network: 'linkedin', fault }).expect(201);
    await arm('rate_limit');
    const limited = await post({ commentary: 'r' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      status: 429,
      serviceErrorCode: 101,
      code: 'TOO_MANY_REQUESTS',
      message: expect.any(String),
    });
    expect(limited.headers['retry-after']).toBeUndefined();
    await arm('server_error');
    expect((await post({ commentary: 's' })).status).toBe(500);
    await arm('token_expired');
    expect((await post({ commentary: 't' })).body).toEqual({
      status: 401,
      serviceErrorCode: 65600,
      code: 'EXPIRED_ACCESS_TOKEN',
      message: 'The token used in the request has expired',
    });
    await arm('duplicate');
    expect((await post({ commentary: 'w' })).status).toBe(422);
    // Revocation is real: the token stays refused once the fault is spent.
    await arm('token_revoked');
    expect((await post({ commentary: 'u' })).body.code).toBe('REVOKED_ACCESS_TOKEN');
    expect((await post({ commentary: 'after the fault' })).body).toEqual({
      status: 401,
      serviceErrorCode: 65601,
      code: 'REVOKED_ACCESS_TOKEN',
      message: 'The token used in the request has been revoked by the user',
    });
    expect((await request(app).get('/linkedin/v2/userinfo').set('Authorization', 'Bearer invalid_x')).body).toEqual({
      status: 401,
      serviceErrorCode: 65600,
      code: 'INVALID_ACCESS_TOKEN',
      message: 'Invalid access token',
    });
  });
});

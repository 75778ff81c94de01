import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { MP4, mediaHost, settle } from './support/media.ts';

// Shapes from docs/networks.md §5 (TikTok Open API v2 / Content Posting API).
describe('sandbox /tiktok', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  const auth = { Authorization: 'Bearer act.byok-tiktok' };
  let media: Awaited<ReturnType<typeof mediaHost>>;
  beforeAll(async () => {
    media = await mediaHost();
  });
  afterAll(async () => media.close());
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const ok = { code: 'ok', message: '', log_id: expect.stringMatching(/^\d{14}[0-9A-F]+$/) };
  const status = (publishId: string) =>
    request(app).post('/tiktok/v2/post/publish/status/fetch/').set(auth).send({ publish_id: publishId });

  it('OAuth token response fields; refresh rotates and the old refresh token stops working', async () => {
    const authorize = await request(app).get('/tiktok/v2/auth/authorize/').query({
      client_key: 'ck',
      scope: 'user.info.basic,video.publish',
      response_type: 'code',
      redirect_uri: 'https://a/cb',
      state: 's',
    });
    expect(authorize.status).toBe(302);
    const code = new URL(authorize.headers.location as string).searchParams.get('code');
    const token = await request(app).post('/tiktok/v2/oauth/token/').type('form').send({
      client_key: 'ck',
      client_secret: 'cs',
      code,
      grant_type: 'authorization_code',
      redirect_uri: 'https://a/cb',
    });
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^act\./),
      expires_in: 7200,
      open_id: expect.any(String),
      refresh_expires_in: 15552000,
      refresh_token: expect.stringMatching(/^rft\./),
      scope: 'user.info.basic,video.publish',
      token_type: 'Bearer',
    });
    const refreshed = await request(app).post('/tiktok/v2/oauth/token/').type('form').send({
      client_key: 'ck',
      client_secret: 'cs',
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token,
    });
    expect(refreshed.body.refresh_token).not.toBe(token.body.refresh_token);
    const reused = await request(app).post('/tiktok/v2/oauth/token/').type('form').send({
      client_key: 'ck',
      client_secret: 'cs',
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token,
    });
    expect(reused.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.any(String),
      log_id: expect.any(String),
    });
    expect(
      (
        await request(app)
          .post('/tiktok/v2/oauth/revoke/')
          .type('form')
          .send({ client_key: 'ck', client_secret: 'cs', token: refreshed.body.access_token })
      ).body,
    ).toEqual({});
  });

  it('creator_info and user info in the v2 envelope; invalid tokens answer access_token_invalid', async () => {
    const creator = await request(app).post('/tiktok/v2/post/publish/creator_info/query/').set(auth);
    expect(creator.body).toEqual({
      data: expect.objectContaining({
        creator_username: expect.any(String),
        privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
        max_video_post_duration_sec: 300,
      }),
      error: ok,
    });
    const user = await request(app).get('/tiktok/v2/user/info/').query({ fields: 'open_id,username' }).set(auth);
    expect(Object.keys(user.body.data.user)).toEqual(['open_id', 'username']);
    const bad = await request(app)
      .post('/tiktok/v2/post/publish/creator_info/query/')
      .set('Authorization', 'Bearer invalid_tt');
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({
      data: {},
      error: {
        code: 'access_token_invalid',
        message: 'The access token is invalid or not found in the request.',
        log_id: expect.any(String),
      },
    });
  });

  it('PULL_FROM_URL: PROCESSING_DOWNLOAD -> PUBLISH_COMPLETE (empty ids) -> publicaly_available_post_id as int64', async () => {
    const init = await request(app)
      .post('/tiktok/v2/post/publish/video/init/')
      .set(auth)
      .send({
        post_info: { title: 't', privacy_level: 'PUBLIC_TO_EVERYONE' },
        source_info: { source: 'PULL_FROM_URL', video_url: media.url('/video.mp4') },
      });
    expect(init.body).toEqual({ data: { publish_id: expect.stringMatching(/^v_pub_url~v2\.\d+$/) }, error: ok });
    await settle();
    expect((await status(init.body.data.publish_id)).body.data).toEqual({
      status: 'PROCESSING_DOWNLOAD',
      fail_reason: '',
      publicaly_available_post_id: [],
      uploaded_bytes: 0,
      downloaded_bytes: MP4.length,
    });
    expect((await status(init.body.data.publish_id)).body.data).toMatchObject({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [],
    });
    const final = await status(init.body.data.publish_id);
    expect(final.text).toMatch(/"publicaly_available_post_id":\[7\d{18}\]/);
  });

  it('FILE_UPLOAD: chunk rules, upload_url, 201 on the last chunk; privacy_level must match creator_info', async () => {
    const badChunks = await request(app)
      .post('/tiktok/v2/post/publish/video/init/')
      .set(auth)
      .send({
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'FILE_UPLOAD', video_size: MP4.length, chunk_size: 10, total_chunk_count: 5 },
      });
    expect(badChunks.status).toBe(400);
    expect(badChunks.body.error.code).toBe('invalid_params');
    const mismatch = await request(app)
      .post('/tiktok/v2/post/publish/video/init/')
      .set(auth)
      .send({
        post_info: { privacy_level: 'FOLLOWER_OF_CREATOR' },
        source_info: { source: 'PULL_FROM_URL', video_url: 'https://x/v.mp4' },
      });
    expect(mismatch.body.error.code).toBe('privacy_level_option_mismatch');
    const init = await request(app)
      .post('/tiktok/v2/post/publish/video/init/')
      .set(auth)
      .send({
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'FILE_UPLOAD', video_size: MP4.length, chunk_size: MP4.length, total_chunk_count: 1 },
      });
    expect(init.body.data).toEqual({
      publish_id: expect.stringMatching(/^v_pub_file~v2-1\.\d+$/),
      upload_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4010\/tiktok\/video\/\?upload_id=\d+&upload_token=/),
    });
    expect((await status(init.body.data.publish_id)).body.data.status).toBe('PROCESSING_UPLOAD');
    const url = new URL(init.body.data.upload_url as string);
    const put = await request(app)
      .put(url.pathname + url.search)
      .set('Content-Type', 'video/mp4')
      .set('Content-Range', `bytes 0-${MP4.length - 1}/${MP4.length}`)
      .send(MP4);
    expect(put.status).toBe(201);
    await status(init.body.data.publish_id);
    const done = await status(init.body.data.publish_id);
    expect(done.body.data).toMatchObject({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [],
      uploaded_bytes: MP4.length,
    });
  });

  it('FILE_UPLOAD chunks must follow the declared plan: exact chunk_size, the last to the end', async () => {
    const MB = 1024 * 1024;
    const size = 12 * MB;
    const init = await request(app)
      .post('/tiktok/v2/post/publish/video/init/')
      .set(auth)
      .send({
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'FILE_UPLOAD', video_size: size, chunk_size: 5 * MB, total_chunk_count: 2 },
      });
    expect(init.status).toBe(200);
    const url = new URL(init.body.data.upload_url as string);
    const put = (first: number, last: number) =>
      request(app)
        .put(url.pathname + url.search)
        .set('Content-Type', 'video/mp4')
        .set('Content-Range', `bytes ${first}-${last}/${size}`)
        .send(Buffer.alloc(last - first + 1, 1));
    expect((await put(0, 4 * MB - 1)).body.error.code).toBe('invalid_file_upload');
    expect((await put(3 * MB, 8 * MB - 1)).body.error.code).toBe('invalid_file_upload');
    expect((await put(5 * MB, 10 * MB - 1)).body.error.code).toBe('invalid_file_upload');
    expect((await put(0, 5 * MB - 1)).status).toBe(206);
    expect((await put(5 * MB, size - 1)).status).toBe(201);
  });

  it('PULL_FROM_URL only from verified prefixes when the app has some (url_ownership_unverified)', async () => {
    const verifiedApp = createSandboxApp({
      publicUrl: 'http://127.0.0.1:4010',
      allowPrivateUrls: true,
      processingPolls: 1,
      tiktokVerifiedPrefixes: [new URL(media.url('/')).origin],
    });
    const pull = (videoUrl: string) =>
      request(verifiedApp)
        .post('/tiktok/v2/post/publish/video/init/')
        .set(auth)
        .send({
          post_info: { privacy_level: 'SELF_ONLY' },
          source_info: { source: 'PULL_FROM_URL', video_url: videoUrl },
        });
    const refused = await pull('https://cdn.example.com/v.mp4');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('url_ownership_unverified');
    expect((await pull(media.url('/video.mp4'))).status).toBe(200);
    const photos = await request(verifiedApp)
      .post('/tiktok/v2/post/publish/content/init/')
      .set(auth)
      .send({
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'PULL_FROM_URL', photo_images: ['https://cdn.example.com/a.jpg'] },
      });
    expect(photos.body.error.code).toBe('url_ownership_unverified');
  });

  it('photo posts: PULL_FROM_URL only, <= 35 images, title <= 90; a PNG fails file_format_check_failed', async () => {
    const upload = await request(app)
      .post('/tiktok/v2/post/publish/content/init/')
      .set(auth)
      .send({
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'FILE_UPLOAD', photo_images: ['x'] },
      });
    expect(upload.body.error.code).toBe('invalid_params');
    const long = await request(app)
      .post('/tiktok/v2/post/publish/content/init/')
      .set(auth)
      .send({
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { title: 'x'.repeat(91), privacy_level: 'SELF_ONLY' },
        source_info: { source: 'PULL_FROM_URL', photo_images: ['https://a/1.jpg'] },
      });
    expect(long.status).toBe(400);
    const init = await request(app)
      .post('/tiktok/v2/post/publish/content/init/')
      .set(auth)
      .send({
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { privacy_level: 'SELF_ONLY' },
        source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [media.url('/image.png')] },
      });
    expect(init.body.data.publish_id).toMatch(/^p_pub_url~v2\.\d+$/);
    await settle();
    await status(init.body.data.publish_id);
    expect((await status(init.body.data.publish_id)).body.data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'file_format_check_failed',
    });
  });

  it('faults in TikTok shape', async () => {
    const arm = (fault: string) =>
      request(app).post('/__sandbox/faults').send({ network: 'tiktok', fault }).expect(201);
    const call = () => request(app).post('/tiktok/v2/post/publish/creator_info/query/').set(auth);
    await arm('rate_limit');
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      data: {},
      error: { code: 'rate_limit_exceeded', message: expect.any(String), log_id: expect.any(String) },
    });
    await arm('server_error');
    expect((await call()).body.error.code).toBe('internal_error');
    await arm('token_expired');
    expect((await call()).status).toBe(401);
    await arm('duplicate');
    expect((await call()).body.error.code).toBe('spam_risk');
  });
});

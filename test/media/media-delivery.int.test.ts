import request from 'supertest';
import { image, video } from '../../libs/media/test/support/fixtures.ts';
import { connectAccount, NETWORKS, waitForFinal } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

/**
 * Posts built from the media library, delivered to the sandbox's five networks: pulling networks
 * fetch the public URL (the harness's gateway listens on a port for them), byte networks get the file streamed
 * from storage, TikTok (no verified prefix here) by FILE_UPLOAD.
 */
describe('media library: delivery to every network', () => {
  let system: SystemHarness;
  let auth: string;
  const accounts: Record<string, string> = {};

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher'],
      // A deployment whose media domain is not verified with TikTok yet.
      env: { PROVIDER_TIMEOUT_MS: '5000', TIKTOK_VERIFIED_URL_PREFIXES: '', TIKTOK_MEDIA_URL_VERIFIED: 'false' },
    });
    auth = `Bearer ${await system.token()}`;
    for (const network of NETWORKS) accounts[network] = await connectAccount(system, auth, network);
  }, 180_000);

  afterAll(async () => {
    await system?.close();
  });

  const upload = async (bytes: Buffer) => {
    const res = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .attach('file', bytes, 'file');
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as { media_id: string; public_url: string; compatibility: Record<string, { ok: boolean }> };
  };

  it('publishes one uploaded video to all five networks', async () => {
    const clip = await upload(await video(4, 640, 480));
    expect(Object.values(clip.compatibility).every((verdict) => verdict.ok)).toBe(true);
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({
        account_ids: NETWORKS.map((network) => accounts[network]),
        text: 'library video',
        media_ids: [clip.media_id],
        platform_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
      });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id, 90_000);
    expect(post.results.map((result) => [result.provider, result.status, result.error_message])).toEqual(
      NETWORKS.map((network) => [network, 'published', null]),
    );
    const [tiktok] = await system.sandbox.posts('tiktok');
    expect(tiktok?.options.source).toBe('FILE_UPLOAD');
    // While the post was running the media could not be deleted; now it can.
    expect((await request(system.gateway).delete(`/v1/media/${clip.media_id}`).set('Authorization', auth)).status).toBe(
      204,
    );
  }, 120_000);

  it('gives Instagram the JPEG rendition of an uploaded PNG', async () => {
    const png = await upload(await image('png', 800, 800));
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.instagram], text: 'png', media_ids: [png.media_id] });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id, 60_000);
    expect(post.results[0]).toEqual(expect.objectContaining({ status: 'published' }));
    const posts = await system.sandbox.posts('instagram');
    expect(posts[posts.length - 1]?.media[0]?.url).toBe(`${png.public_url}.jpg`);
  }, 90_000);

  it('resolves media_ids and imports media_urls once per job at accept time, with 400s naming what is wrong', async () => {
    const unknown = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.x], text: 'x', media_ids: ['med_AAAAAAAAAAAAAAAAAAAAAAAA'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toEqual(
      expect.objectContaining({ path: '/body/media_ids/0', rule: 'unknown_media' }),
    );
    const other = `Bearer ${await system.token()}`;
    const foreign = (
      await request(system.gateway)
        .post('/v1/media')
        .set('Authorization', other)
        .attach('file', await image('jpeg'), 'a.jpg')
    ).body as { media_id: string };
    const stolen = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.x], text: 'x', media_ids: [foreign.media_id] });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error.details[0]).toEqual(expect.objectContaining({ rule: 'unknown_media' }));

    const dead = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.x], text: 'x', media_urls: [system.media.url('/missing.jpg')] });
    expect(dead.status).toBe(400);
    expect(dead.body.error.details[0]).toEqual(
      expect.objectContaining({
        path: '/body/media_urls/0',
        rule: 'media_download_failed',
        message: expect.stringContaining('HTTP 404'),
      }),
    );

    const before = (await request(system.gateway).get('/v1/media?limit=100').set('Authorization', auth)).body
      .total as number;
    const url = system.media.url('/image.jpg');
    const twice = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.x, accounts.linkedin], text: 'imported', media_urls: [url] });
    expect(twice.status).toBe(202);
    const after = (await request(system.gateway).get('/v1/media?limit=100').set('Authorization', auth)).body as {
      total: number;
      items: { source_url: string | null }[];
    };
    // One import for the job, whatever the number of targets.
    expect(after.total).toBe(before + 1);
    expect(after.items[0]?.source_url).toBe(url);
    const done = await waitForFinal(system, auth, twice.body.id, 60_000);
    expect(done.results.map((result) => result.status)).toEqual(['published', 'published']);
  }, 90_000);

  it('refuses TikTok photos at accept time when the media domain is not verified with TikTok', async () => {
    const jpeg = await upload(await image('jpeg', 600, 600));
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({
        account_ids: [accounts.tiktok],
        text: 'photo',
        media_ids: [jpeg.media_id],
        platform_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ rule: 'url_ownership_unverified', provider: 'tiktok' }),
    ]);
  });

  it('refuses at accept time a file a target network would refuse (GIF for Instagram)', async () => {
    const gif = await upload(await image('gif'));
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [accounts.instagram, accounts.x], text: 'gif', media_ids: [gif.media_id] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ rule: 'media_format', provider: 'instagram', media_id: gif.media_id }),
    ]);
  });
});

import request from 'supertest';
import { pngBomb } from '../../libs/media/test/support/bombs.ts';
import { formatOf, image } from '../../libs/media/test/support/fixtures.ts';
import { MB, rssGrowthDuring } from '../../libs/media/test/support/memory.ts';
import { startServer, type TestServer } from '../../libs/media/test/support/test-server.ts';
import { connectAccount } from '../publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

/**
 * A decompression bomb (a PNG of a few KB declaring 16,000 x 16,000 pixels) through every way in:
 * upload, import, verification, and a post's media_urls imported by the publisher. The gateway and
 * the publisher run in this process, so its resident memory is theirs.
 */
describe('media decoding limits (gateway + publisher)', () => {
  let system: SystemHarness;
  let auth: string;
  let server: TestServer;
  const bomb = pngBomb(16_000, 16_000);
  const refused = expect.objectContaining({
    code: 'payload_too_large',
    message: 'The image is 16000 x 16000 pixels (256 megapixels); the limit is 40 megapixels.',
    details: [expect.objectContaining({ rule: 'max_pixels', limit: 40_000_000 })],
  });

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'] });
    auth = `Bearer ${await system.token()}`;
    server = await startServer({
      '/bomb.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(bomb),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await system?.close();
  });

  const listed = async () =>
    ((await request(system.gateway).get('/v1/media').set('Authorization', auth)).body as { total: number }).total;

  it('refuses the bomb uploaded (multipart and raw) with a 413 naming the pixel limit, memory staying bounded', async () => {
    const {
      result: [multipart, raw],
      growthBytes,
    } = await rssGrowthDuring(async () => [
      await request(system.gateway).post('/v1/media').set('Authorization', auth).attach('file', bomb, 'bomb.png'),
      await request(system.gateway)
        .post('/v1/media')
        .set('Authorization', auth)
        .set('Content-Type', 'image/png')
        .send(bomb),
    ]);
    expect([multipart!.status, raw!.status]).toEqual([413, 413]);
    expect(multipart!.body.error).toEqual(refused);
    expect(raw!.body.error).toEqual(refused);
    expect(growthBytes).toBeLessThan(200 * MB);
    expect(await listed()).toBe(0);
  }, 60_000);

  it('refuses the bomb imported or verified by URL', async () => {
    const url = `${server.base}/bomb.png`;
    const {
      result: [imported, verified],
      growthBytes,
    } = await rssGrowthDuring(async () => [
      await request(system.gateway).post('/v1/media').set('Authorization', auth).send({ url }),
      await request(system.gateway).post('/v1/media/verify').set('Authorization', auth).send({ url }),
    ]);
    expect(imported!.status).toBe(413);
    expect(imported!.body.error).toEqual(refused);
    expect(verified!.status).toBe(200);
    expect(verified!.body).toEqual(
      expect.objectContaining({
        reachable: true,
        content_type: null,
        error: expect.objectContaining({ code: 'payload_too_large', rule: 'max_pixels' }),
      }),
    );
    expect(growthBytes).toBeLessThan(200 * MB);
    expect(await listed()).toBe(0);
  }, 60_000);

  it('refuses a post whose media_urls holds the bomb (the publisher imports it) with a 400 naming the URL', async () => {
    const account = await connectAccount(system, auth, 'x');
    const url = `${server.base}/bomb.png`;
    const { result: res, growthBytes } = await rssGrowthDuring(() =>
      request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .send({ account_ids: [account], text: 'bomb', media_urls: [url] }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual(
      expect.objectContaining({
        path: '/body/media_urls/0',
        rule: 'max_pixels',
        url,
        message: expect.stringContaining('16000 x 16000 pixels'),
      }),
    );
    expect(growthBytes).toBeLessThan(200 * MB);
    expect(await listed()).toBe(0);
  }, 60_000);

  it('takes an ordinary 2000 x 2000 PNG and serves its JPEG rendition', async () => {
    const res = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .attach('file', await image('png', 2000, 2000), 'photo.png');
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        content_type: 'image/png',
        width: 2000,
        height: 2000,
        jpeg_rendition_url: expect.stringMatching(/\.jpg$/),
      }),
    );
    const jpeg = await request(system.gateway)
      .get(new URL(res.body.jpeg_rendition_url as string).pathname)
      .buffer(true);
    expect(jpeg.status).toBe(200);
    expect(await formatOf(jpeg.body as Buffer)).toBe('jpeg');
  }, 60_000);
});

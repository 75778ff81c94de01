import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { formatOf, image, noise, pdf, video } from '../../libs/media/test/support/fixtures.ts';
import { startServer, type TestServer } from '../../libs/media/test/support/test-server.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

interface MediaBody {
  media_id: string;
  public_url: string;
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  sha256: string;
  jpeg_rendition_url: string | null;
  compatibility: Record<string, { ok: boolean; rule: string | null }>;
}

const pathOf = (url: string) => new URL(url).pathname;
const QUOTA = 3 * 1024 * 1024;

/** The media library through the gateway, with the publisher holding the records. */
describe('media library (gateway + publisher)', () => {
  let system: SystemHarness;
  let auth: string;
  let server: TestServer;
  let png: Buffer;
  let mp4: Buffer;
  let deck: Buffer;

  beforeAll(async () => {
    system = await startSystem({
      services: ['publisher'],
      env: { MEDIA_MAX_IMAGE_BYTES: String(2 * 1024 * 1024), MEDIA_ORG_QUOTA_BYTES: String(QUOTA) },
    });
    auth = `Bearer ${await system.token()}`;
    png = await image('png', 100, 80);
    mp4 = await video(1, 320, 240);
    deck = await pdf(5);
    server = await startServer({
      '/served-as-octet': (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png),
      '/clip.mp4': (_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end(mp4),
      '/deck.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(deck),
      '/to-metadata': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      '/page': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
      '/huge.mp4': (_req, res) =>
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(900 * 1024 * 1024) }).end(),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await system?.close();
  });

  const upload = (bytes: Buffer, filename = 'upload.bin', as = auth) =>
    request(system.gateway).post('/v1/media').set('Authorization', as).attach('file', bytes, filename);

  it('uploads a PNG (multipart), measures it from its bytes and serves it publicly with ranges', async () => {
    const res = await upload(png, 'photo.jpg');
    expect(res.status).toBe(201);
    const media = res.body as MediaBody;
    expect(media).toEqual(
      expect.objectContaining({
        content_type: 'image/png',
        kind: 'image',
        size_bytes: png.length,
        width: 100,
        height: 80,
        duration_ms: null,
        source_url: null,
      }),
    );
    expect(media.media_id).toMatch(/^med_[A-Za-z0-9_-]{24}$/);
    expect(media.public_url).toBe(`${system.env.MEDIA_PUBLIC_BASE_URL}/media/${media.media_id}`);
    expect(media.compatibility.instagram).toEqual({ ok: true, rule: null, message: null });

    const whole = await request(system.gateway).get(pathOf(media.public_url)).buffer(true);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('image/png');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(Number(whole.headers['content-length'])).toBe(png.length);
    expect(Buffer.compare(whole.body as Buffer, png)).toBe(0);

    const part = await request(system.gateway).get(pathOf(media.public_url)).set('Range', 'bytes=8-15').buffer(true);
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 8-15/${png.length}`);
    expect(Buffer.compare(part.body as Buffer, png.subarray(8, 16))).toBe(0);
    const beyond = await request(system.gateway).get(pathOf(media.public_url)).set('Range', `bytes=${png.length}-`);
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${png.length}`);

    const jpeg = await request(system.gateway).get(pathOf(media.jpeg_rendition_url!)).buffer(true);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect(await formatOf(jpeg.body as Buffer)).toBe('jpeg');
  });

  it('uploads every kind of real file with its sniffed type; refuses a file lying about its type and one over its limit', async () => {
    for (const [bytes, type] of [
      [await image('jpeg'), 'image/jpeg'],
      [await image('webp'), 'image/webp'],
      [await image('gif'), 'image/gif'],
      [mp4, 'video/mp4'],
    ] as const) {
      const res = await upload(bytes, 'x.png');
      expect(res.status).toBe(201);
      expect((res.body as MediaBody).content_type).toBe(type);
    }
    const video = (await upload(mp4)).body as MediaBody;
    expect(video).toEqual(expect.objectContaining({ kind: 'video', width: 320, height: 240 }));
    expect(video.duration_ms).toBeGreaterThan(900);

    const raw = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .set('Content-Type', 'image/png')
      .send(png);
    expect(raw.status).toBe(201);

    const liar = await upload(Buffer.from('<?php echo "not an image"; ?>'), 'cat.png');
    expect(liar.status).toBe(415);
    expect(liar.body.error.code).toBe('unsupported_media_type');

    const big = await upload(await noise(1000, 1000, 'png'), 'noise.png');
    expect(big.status).toBe(413);
    expect(big.body.error).toEqual(
      expect.objectContaining({ code: 'payload_too_large', message: expect.stringContaining('2 MB limit for images') }),
    );

    const noFile = await request(system.gateway).post('/v1/media').set('Authorization', auth).field('other', 'x');
    expect(noFile.status).toBe(400);
  }, 120_000);

  it('imports from a URL (octet-stream host), verifies URLs, and refuses SSRF and limit cases with the reason', async () => {
    const imported = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .send({ url: `${server.base}/served-as-octet` });
    expect(imported.status).toBe(201);
    expect(imported.body).toEqual(
      expect.objectContaining({ content_type: 'image/png', source_url: `${server.base}/served-as-octet` }),
    );

    const verified = await request(system.gateway)
      .post('/v1/media/verify')
      .set('Authorization', auth)
      .send({ url: `${server.base}/clip.mp4` });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual(
      expect.objectContaining({ reachable: true, content_type: 'video/mp4', width: 320, height: 240, error: null }),
    );
    expect(verified.body.compatibility.instagram).toEqual(expect.objectContaining({ ok: false, rule: 'duration' }));

    // A PDF: verified with its pages (the whole file fits in the head), imported as a document.
    const verifiedPdf = await request(system.gateway)
      .post('/v1/media/verify')
      .set('Authorization', auth)
      .send({ url: `${server.base}/deck.pdf` });
    expect(verifiedPdf.body).toEqual(
      expect.objectContaining({ content_type: 'application/pdf', kind: 'document', page_count: 5, error: null }),
    );
    const importedPdf = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .send({ url: `${server.base}/deck.pdf` });
    expect([importedPdf.status, importedPdf.body.kind, importedPdf.body.page_count]).toEqual([201, 'document', 5]);
    expect(importedPdf.body.compatibility.linkedin.ok).toBe(true);

    const metadata = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .send({ url: `${server.base}/to-metadata` });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.details[0]).toEqual(expect.objectContaining({ rule: 'media_url_blocked' }));
    const html = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .send({ url: `${server.base}/page` });
    expect(html.status).toBe(415);
    const huge = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .send({ url: `${server.base}/huge.mp4` });
    expect(huge.status).toBe(413);
    const blocked = await request(system.gateway)
      .post('/v1/media/verify')
      .set('Authorization', auth)
      .send({ url: 'http://169.254.169.254/latest/meta-data/' });
    expect(blocked.body).toEqual(
      expect.objectContaining({ reachable: false, error: expect.objectContaining({ rule: 'media_url_blocked' }) }),
    );
  }, 60_000);

  it('lists with keyset pagination, isolates organizations, honours Idempotency-Key and deletes', async () => {
    const other = `Bearer ${await system.token()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(((await upload(await image('jpeg', 10 + i, 10), 'a.jpg', other)).body as MediaBody).media_id);
    const first = await request(system.gateway).get('/v1/media?limit=2').set('Authorization', other);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((item: MediaBody) => item.media_id)).toEqual([ids[2], ids[1]]);
    const second = await request(system.gateway)
      .get(`/v1/media?limit=2&cursor=${first.body.next_cursor}`)
      .set('Authorization', other);
    expect(second.body.items.map((item: MediaBody) => item.media_id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();

    // Another organization sees none of it.
    expect((await request(system.gateway).get(`/v1/media/${ids[0]}`).set('Authorization', auth)).status).toBe(404);
    expect((await request(system.gateway).delete(`/v1/media/${ids[0]}`).set('Authorization', auth)).status).toBe(404);

    const key = uniqueName('idem');
    const once = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', other)
      .set('Idempotency-Key', key)
      .send({ url: `${server.base}/served-as-octet` });
    const twice = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', other)
      .set('Idempotency-Key', key)
      .send({ url: `${server.base}/served-as-octet` });
    expect(twice.body.media_id).toBe(once.body.media_id);

    const gone = (await request(system.gateway).get(`/v1/media/${ids[0]}`).set('Authorization', other))
      .body as MediaBody;
    expect((await request(system.gateway).delete(`/v1/media/${ids[0]}`).set('Authorization', other)).status).toBe(204);
    expect((await request(system.gateway).get(`/v1/media/${ids[0]}`).set('Authorization', other)).status).toBe(404);
    expect((await request(system.gateway).get(pathOf(gone.public_url))).status).toBe(404);
    expect((await request(system.gateway).get('/media/med_not-a-real-id-at-all-xyz')).status).toBe(404);
    expect((await request(system.gateway).get('/media/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
  });

  it('refuses an upload past the organization storage quota (413 naming the quota) and keeps no file of it', async () => {
    const org = `Bearer ${await system.token()}`;
    const photo = await noise(700, 700, 'jpeg');
    let status = 201;
    let res;
    for (let i = 0; i < 20 && status === 201; i += 1) {
      res = await upload(photo, 'n.jpg', org);
      status = res.status;
    }
    expect(status).toBe(413);
    expect(res!.body.error.details[0]).toEqual(expect.objectContaining({ rule: 'org_storage_quota', limit: QUOTA }));
    const listed = await request(system.gateway).get('/v1/media?limit=100').set('Authorization', org);
    expect(listed.body.items.reduce((sum: number, item: MediaBody) => sum + item.size_bytes, 0)).toBeLessThanOrEqual(
      QUOTA,
    );
  }, 120_000);
});

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { Value } from '@sinclair/typebox/value';
import {
  createLocalStorage,
  decoderFromConfig,
  importUrl,
  ingest,
  mediaConfigObjectSchema,
  verifyUrl,
  type IngestDeps,
  type MediaConfig,
} from '../src/index.ts';
import { pngBomb } from './support/bombs.ts';
import { image, video } from './support/fixtures.ts';
import { MB, rssGrowthDuring } from './support/memory.ts';
import { startServer, type TestServer } from './support/test-server.ts';

const settings = {
  MEDIA_MAX_INPUT_PIXELS: 40_000_000,
  MEDIA_DECODE_CONCURRENCY: 2,
  MEDIA_DECODE_MEMORY_BYTES: 256 * MB,
  MEDIA_DECODE_QUEUE: 64,
  MEDIA_DECODE_TIMEOUT_MS: 15_000,
};

/** Decoding limits on real files: the bomb is refused from its header, ordinary images still convert. */
describe('media decoding limits', () => {
  let dir: string;
  let deps: IngestDeps;
  let server: TestServer;
  let bomb: Buffer;
  const dev = { policy: { allowPrivate: true }, deadlineMs: 10_000 };
  const withDecoder = (overrides: Partial<typeof settings>): IngestDeps => ({
    ...deps,
    decoder: decoderFromConfig({ ...settings, ...overrides }),
  });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-decode-'));
    deps = {
      storage: createLocalStorage(path.join(dir, 'store')),
      tmpDir: path.join(dir, 'tmp'),
      limits: { maxImageBytes: 20 * MB, maxGifBytes: 15 * MB, maxVideoBytes: 64 * MB },
      decoder: decoderFromConfig(settings),
    };
    bomb = pngBomb(16_000, 16_000);
    const small = await image('png', 64, 48);
    server = await startServer({
      '/bomb.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(bomb),
      '/small.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(small),
    });
  });

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const maxPixels = {
    code: 'payload_too_large',
    status: 413,
    details: [expect.objectContaining({ rule: 'max_pixels', limit: 40_000_000 })],
  };

  it('refuses a 16,000 x 16,000 PNG of a few KB from its header, this process staying within 200 MB', async () => {
    expect(bomb.length).toBeLessThan(64 * 1024);
    const { result, growthBytes } = await rssGrowthDuring(() =>
      ingest(deps, Readable.from([bomb])).catch((error: unknown) => error),
    );
    expect(result).toMatchObject({
      ...maxPixels,
      message: 'The image is 16000 x 16000 pixels (256 megapixels); the limit is 40 megapixels.',
    });
    expect(growthBytes).toBeLessThan(200 * MB);
    expect(await readdir(deps.tmpDir)).toEqual([]);
    expect(await readdir(path.join(dir, 'store')).catch(() => [])).toEqual([]);
  });

  it('refuses the same bomb imported or verified by URL', async () => {
    const { result, growthBytes } = await rssGrowthDuring(async () => [
      await importUrl(deps, `${server.base}/bomb.png`, dev).catch((error: unknown) => error),
      await verifyUrl({ ...deps, headBytes: 4 << 20 }, `${server.base}/bomb.png`, dev).catch((error: unknown) => error),
    ]);
    expect(result).toEqual([expect.objectContaining(maxPixels), expect.objectContaining(maxPixels)]);
    expect(growthBytes).toBeLessThan(200 * MB);
  });

  it('still converts an ordinary 2000 x 2000 PNG to its JPEG rendition', async () => {
    const stored = await ingest(deps, Readable.from([await image('png', 2000, 2000)]));
    expect(stored.facts).toEqual(expect.objectContaining({ contentType: 'image/png', width: 2000, height: 2000 }));
    const rendition = await deps.storage.read(stored.rendition!.key);
    const chunks: Buffer[] = [];
    for await (const chunk of rendition) chunks.push(chunk as Buffer);
    expect(await sharp(Buffer.concat(chunks)).metadata()).toEqual(
      expect.objectContaining({ format: 'jpeg', width: 2000, height: 2000 }),
    );
  });

  it('refuses a PNG whose header reads but whose pixels do not (400 decodable), leaving nothing behind', async () => {
    const noisy = await sharp(
      Buffer.alloc(300 * 300 * 3).map(() => Math.floor(Math.random() * 256)),
      { raw: { width: 300, height: 300, channels: 3 } },
    )
      .png()
      .toBuffer();
    await expect(ingest(deps, Readable.from([noisy.subarray(0, noisy.length / 2)]))).rejects.toMatchObject({
      code: 'validation_error',
      status: 400,
      details: [expect.objectContaining({ rule: 'decodable' })],
    });
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });

  it('counts every frame of an animated GIF, and holds WebP (decoded whole) to the memory budget', async () => {
    const pixels = Buffer.concat([0, 120, 240].map((shade) => Buffer.alloc(100 * 100 * 3, shade)));
    const frames = await sharp(pixels, { raw: { width: 100, height: 300, channels: 3, pageHeight: 100 } })
      .gif()
      .toBuffer();
    await expect(
      ingest(withDecoder({ MEDIA_MAX_INPUT_PIXELS: 25_000 }), Readable.from([frames])),
    ).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'max_pixels', limit: 25_000 })],
      message: expect.stringContaining('100 x 100 pixels x 3 frames'),
    });
    expect((await ingest(withDecoder({ MEDIA_MAX_INPUT_PIXELS: 30_000 }), Readable.from([frames]))).facts).toEqual(
      expect.objectContaining({ width: 100, height: 100 }),
    );

    const small = withDecoder({ MEDIA_DECODE_MEMORY_BYTES: 16 * MB });
    await expect(ingest(small, Readable.from([await image('webp', 1500, 1000)]))).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'max_pixels' })],
      message: expect.stringContaining('WebP images, which are decoded whole'),
    });
    expect((await ingest(small, Readable.from([await image('webp', 1000, 1000)]))).rendition).not.toBeNull();
  });

  it('takes the 35 media_urls a post may hold, imported at once, with the default pool', async () => {
    const defaults = { ...deps, decoder: decoderFromConfig(Value.Default(mediaConfigObjectSchema, {}) as MediaConfig) };
    const urls = Array.from({ length: 35 }, (_, index) => `${server.base}/small.png?${index}`);
    const stored = await Promise.all(urls.map((url) => importUrl(defaults, url, dev)));
    expect(stored.every((item) => item.rendition !== null)).toBe(true);
  });

  it('answers 503 with Retry-After when every decoder is busy and its queue is full', async () => {
    const busy = withDecoder({ MEDIA_DECODE_CONCURRENCY: 1, MEDIA_DECODE_QUEUE: 0 });
    let release!: () => void;
    const held = busy.decoder!.pool.run(0, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(ingest(busy, Readable.from([await image('png')]))).rejects.toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    release();
    await held;
    expect((await ingest(busy, Readable.from([await image('png')]))).rendition).not.toBeNull();
  });

  it('kills ffprobe at the decode deadline and refuses the video (400 decode_timeout)', async () => {
    // No ffprobe answers within a millisecond: the deadline always passes first.
    const hurried = withDecoder({ MEDIA_DECODE_TIMEOUT_MS: 1 });
    await expect(ingest(hurried, Readable.from([await video(1, 160, 120)]))).rejects.toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ rule: 'decode_timeout' })],
    });
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
// s3rver ships no types; only its constructor, run and close are used.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
};
import { createS3Storage, discard, ingest, type MediaStorage } from '../src/index.ts';
import { image, video } from './support/fixtures.ts';

const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** The S3 backend against s3rver (a local S3 implementation) started here, through the real AWS SDK v3. */
describe('S3 storage (s3rver)', () => {
  let dir: string;
  let server: { run(): Promise<AddressInfo>; close(): Promise<void> };
  let storage: MediaStorage;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-s3-'));
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: path.join(dir, 's3'),
      configureBuckets: [{ name: 'media-test' }],
    });
    const { port } = await server.run();
    storage = createS3Storage({
      bucket: 'media-test',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a PNG and its rendition, reads them whole and by range, and deletes them', async () => {
    const png = await image('png', 120, 90);
    const stored = await ingest(
      {
        storage,
        tmpDir: path.join(dir, 'tmp'),
        limits: { maxImageBytes: 1 << 20, maxGifBytes: 1 << 20, maxVideoBytes: 64 << 20 },
      },
      Readable.from([png]),
    );
    expect(await storage.stat(stored.mediaId)).toEqual({ size: png.length, contentType: 'image/png' });
    expect(await storage.stat(`${stored.mediaId}.jpg`)).toEqual(expect.objectContaining({ contentType: 'image/jpeg' }));
    expect(await readAll(await storage.read(stored.mediaId))).toEqual(png);
    expect(await readAll(await storage.read(stored.mediaId, { start: 1, end: 3 }))).toEqual(png.subarray(1, 4));
    // The orphan sweep's listing: both keys, with when they were written.
    const listed = [];
    for await (const object of storage.list()) listed.push(object);
    expect(listed.map((object) => object.key).sort()).toEqual([stored.mediaId, `${stored.mediaId}.jpg`]);
    expect(listed.every((object) => object.modifiedAt.getTime() > Date.now() - 60_000)).toBe(true);
    await discard(storage, stored.mediaId);
    expect(await storage.stat(stored.mediaId)).toBeNull();
    expect(await storage.stat(`${stored.mediaId}.jpg`)).toBeNull();
  });

  it('uploads a video larger than one multipart part (lib-storage multipart)', async () => {
    const mp4 = await video(6, 640, 480, '8000k', true);
    expect(mp4.length).toBeGreaterThan(5 * 1024 * 1024);
    const stored = await ingest(
      {
        storage,
        tmpDir: path.join(dir, 'tmp'),
        limits: { maxImageBytes: 1 << 20, maxGifBytes: 1 << 20, maxVideoBytes: 64 << 20 },
      },
      Readable.from([mp4]),
    );
    expect(await storage.stat(stored.mediaId)).toEqual({ size: mp4.length, contentType: 'video/mp4' });
    expect((await readAll(await storage.read(stored.mediaId))).equals(mp4)).toBe(true);
  }, 120_000);
});

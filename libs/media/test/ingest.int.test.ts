import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createLocalStorage, importUrl, ingest, verifyUrl, type IngestDeps } from '../src/index.ts';
import { image, video } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/test-server.ts';

const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('media ingest (local storage, real files)', () => {
  let dir: string;
  let deps: IngestDeps;
  let server: TestServer;
  let png: Buffer;
  let mp4: Buffer;
  const dev = { policy: { allowPrivate: true }, deadlineMs: 10_000 };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-ingest-'));
    deps = {
      storage: createLocalStorage(path.join(dir, 'store')),
      tmpDir: path.join(dir, 'tmp'),
      limits: {
        maxImageBytes: 1024 * 1024,
        maxGifBytes: 2 * 1024 * 1024,
        maxVideoBytes: 8 * 1024 * 1024,
        maxDocumentBytes: 8 * 1024 * 1024,
      },
    };
    png = await image('png', 100, 80);
    mp4 = await video(2, 320, 240);
    server = await startServer({
      '/octet': (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png),
      '/page.html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>no</html>'),
      '/big.png': (_req, res) =>
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) }).end(),
      '/to-metadata': (_req, res) =>
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam' }).end(),
      '/clip.mp4': (_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end(mp4),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([['png'], ['jpeg'], ['webp'], ['gif']] as const)(
    'stores a %s with its sniffed type, size, dimensions and sha256',
    async (format) => {
      const bytes = await image(format, 90, 60);
      const stored = await ingest(deps, Readable.from([bytes]));
      const type = format === 'jpeg' ? 'image/jpeg' : `image/${format}`;
      expect(stored.mediaId).toMatch(/^med_[A-Za-z0-9_-]{24}$/);
      expect(stored.facts).toEqual(
        expect.objectContaining({
          contentType: type,
          kind: 'image',
          sizeBytes: bytes.length,
          width: 90,
          height: 60,
          durationMs: null,
        }),
      );
      expect(stored.facts.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await deps.storage.stat(stored.mediaId)).toEqual({ size: bytes.length, contentType: type });
      expect(await readAll(await deps.storage.read(stored.mediaId))).toEqual(bytes);
    },
  );

  it('gives PNG and WebP a JPEG rendition, which makes them fit Instagram', async () => {
    const stored = await ingest(deps, Readable.from([png]));
    expect(stored.rendition).toEqual(
      expect.objectContaining({ key: `${stored.mediaId}.jpg`, contentType: 'image/jpeg' }),
    );
    const jpeg = await readAll(await deps.storage.read(`${stored.mediaId}.jpg`));
    expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(stored.compatibility.instagram).toEqual({ ok: true, rule: null, message: null });
    const gif = await ingest(deps, Readable.from([await image('gif')]));
    expect(gif.rendition).toBeNull();
    expect(gif.compatibility.instagram).toEqual(expect.objectContaining({ ok: false, rule: 'format' }));
    expect(gif.compatibility.x.ok).toBe(true);
  });

  it('measures a video with ffprobe and checks it per network (duration too short for Instagram)', async () => {
    const stored = await ingest(deps, Readable.from([mp4]));
    expect(stored.facts).toEqual(
      expect.objectContaining({
        contentType: 'video/mp4',
        kind: 'video',
        width: 320,
        height: 240,
        sizeBytes: mp4.length,
      }),
    );
    expect(stored.facts.durationMs).toBeGreaterThanOrEqual(1900);
    expect(stored.facts.durationMs).toBeLessThanOrEqual(2100);
    expect(stored.compatibility.instagram).toEqual(expect.objectContaining({ ok: false, rule: 'duration' }));
    expect(stored.compatibility.tiktok).toEqual(expect.objectContaining({ ok: false, rule: 'dimensions' }));
    expect(stored.compatibility.x.ok).toBe(true);
  });

  it('refuses a file lying about its type (415) and leaves no spool file behind', async () => {
    const liar = Buffer.from('#!/bin/sh\necho this is not a png\n');
    await expect(ingest(deps, Readable.from([liar]))).rejects.toMatchObject({
      code: 'unsupported_media_type',
      status: 415,
    });
    // JPEG magic with garbage after it: sniffed as JPEG, refused as undecodable.
    await expect(
      ingest(deps, Readable.from([Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)])])),
    ).rejects.toMatchObject({ code: 'validation_error' });
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });

  it('refuses a file over its type limit (413 naming the limit)', async () => {
    const big = await image('png', 2000, 2000);
    const small = { ...deps, limits: { ...deps.limits, maxImageBytes: 1000 } };
    await expect(ingest(small, Readable.from([big]))).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('limit for images'),
    });
  });

  it('imports from a local server even when it serves application/octet-stream', async () => {
    const stored = await importUrl(deps, `${server.base}/octet`, dev);
    expect(stored.facts.contentType).toBe('image/png');
    const checked = await verifyUrl({ ...deps, headBytes: 1024 * 1024 }, `${server.base}/clip.mp4`, dev);
    expect(checked.facts).toEqual(expect.objectContaining({ contentType: 'video/mp4', width: 320, height: 240 }));
  });

  it('refuses every SSRF and limit case of an import', async () => {
    const strict = { policy: { allowPrivate: false }, deadlineMs: 10_000 };
    await expect(importUrl(deps, `${server.base}/octet`, strict)).rejects.toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ rule: 'media_url_blocked' })],
    });
    // A DNS name resolving to loopback.
    await expect(importUrl(deps, `http://localhost:${new URL(server.base).port}/octet`, strict)).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'media_url_blocked' })],
    });
    await expect(importUrl(deps, `${server.base}/to-metadata`, dev)).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'media_url_blocked' })],
    });
    await expect(importUrl(deps, `${server.base}/big.png`, dev)).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(importUrl(deps, `${server.base}/page.html`, dev)).rejects.toMatchObject({
      code: 'unsupported_media_type',
    });
    await expect(importUrl(deps, `${server.base}/missing.png`, dev)).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'media_download_failed' })],
    });
    await expect(importUrl(deps, 'ftp://example.com/a.png', dev)).rejects.toMatchObject({
      details: [expect.objectContaining({ rule: 'media_url' })],
    });
  });
});

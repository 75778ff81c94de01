import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createLocalStorage, importUrl, ingest, verifyUrl, type IngestDeps } from '../src/index.ts';
import { image } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/test-server.ts';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/**
 * Answers `head` then zeros up to `total` bytes, writing only as fast as the client reads
 * (backpressure), and reports how many bytes it handed to the socket once the client hangs up.
 */
function serveLarge(res: ServerResponse, head: Buffer, total: number, record: (written: number) => void): void {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(total) });
  let written = 0;
  const filler = Buffer.alloc(CHUNK);
  res.once('close', () => record(written));
  const pump = () => {
    while (written < total && !res.destroyed) {
      const chunk = written === 0 ? head : filler.subarray(0, Math.min(CHUNK, total - written));
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (written >= total) res.end();
  };
  pump();
}

/** A PNG's real first bytes, then filler: sniffed as PNG, as long as asked. Counts what was pulled. */
function pngStream(head: Buffer, total: number): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  async function* chunks() {
    pulled += head.length;
    yield head;
    while (pulled < total) {
      pulled += CHUNK;
      yield Buffer.alloc(CHUNK);
    }
  }
  return { stream: Readable.from(chunks()), pulled: () => pulled };
}

describe('media ingest limits: the sniffed type bounds what is read', () => {
  let dir: string;
  let deps: IngestDeps;
  let server: TestServer;
  let pngHead: Buffer;
  const written = new Map<string, Promise<number>>();
  const dev = { policy: { allowPrivate: true }, deadlineMs: 60_000 };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-limits-'));
    // The production limits: 512 MB is within the video limit, so only the PNG's own limit refuses it.
    deps = {
      storage: createLocalStorage(path.join(dir, 'store')),
      tmpDir: path.join(dir, 'tmp'),
      limits: { maxImageBytes: 20 * MB, maxGifBytes: 15 * MB, maxVideoBytes: 512 * MB },
    };
    pngHead = (await image('png', 4000, 3000)).subarray(0, 8192);
    const large = (name: string, total: number) => (_req: unknown, res: ServerResponse) => {
      written.set(name, new Promise((resolve) => serveLarge(res, pngHead, total, resolve)));
    };
    server = await startServer({ '/huge.png': large('huge', 512 * MB), '/photo.png': large('photo', 30 * MB) });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a 512 MB PNG import on its Content-Length once the first bytes say PNG, reading almost nothing', async () => {
    await expect(importUrl(deps, `${server.base}/huge.png`, dev)).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
      message: expect.stringContaining('20 MB limit for images'),
    });
    // The socket is closed after the head: what the server got out is bounded by the socket buffers, not the file.
    expect(await written.get('huge')).toBeLessThan(8 * MB);
    expect(await readdir(deps.tmpDir)).toEqual([]);
  }, 120_000);

  it('stops an upload of a PNG without a length at the image limit, not the video limit', async () => {
    const small = { ...deps, limits: { ...deps.limits, maxImageBytes: 1 * MB, maxVideoBytes: 64 * MB } };
    const upload = pngStream(pngHead, 64 * MB);
    await expect(ingest(small, upload.stream)).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('1 MB limit for images'),
    });
    expect(upload.pulled()).toBeLessThanOrEqual(1 * MB + 2 * CHUNK);
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });

  it('refuses an upload whose announced length is past the sniffed type limit before reading more than its head', async () => {
    const upload = pngStream(pngHead, 64 * MB);
    await expect(ingest(deps, upload.stream, { declaredBytes: 64 * MB })).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('20 MB limit for images'),
    });
    expect(upload.pulled()).toBeLessThan(1 * MB);
  });

  it('verifies a 30 MB URL from its headers and image header, reading only the head', async () => {
    const verified = await verifyUrl(
      { ...deps, headBytes: 4 * MB, limits: { ...deps.limits, maxImageBytes: 40 * MB } },
      `${server.base}/photo.png`,
      dev,
    );
    expect(verified.facts).toEqual({
      contentType: 'image/png',
      kind: 'image',
      sizeBytes: 30 * MB,
      width: 4000,
      height: 3000,
      durationMs: null,
      pageCount: null,
    });
    expect(await written.get('photo')).toBeLessThan(8 * MB);
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });
});

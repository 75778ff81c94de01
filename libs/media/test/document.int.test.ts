import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DecodePool } from '../src/decode-pool.ts';
import { createLocalStorage, importUrl, ingest, verifyUrl, type IngestDeps } from '../src/index.ts';
import { encryptedPdf, pdf } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/test-server.ts';

const MB = 1024 * 1024;

describe('media library: PDF documents', () => {
  let dir: string;
  let deps: IngestDeps;
  let server: TestServer;
  let threePages: Buffer;
  let pulledFromHuge = 0;
  const dev = { policy: { allowPrivate: true }, deadlineMs: 10_000 };
  /** Limits where videos may be larger than documents: the PDF's own limit must be the one that applies. */
  let videoSized: IngestDeps;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'media-document-'));
    deps = {
      storage: createLocalStorage(path.join(dir, 'store')),
      tmpDir: path.join(dir, 'tmp'),
      limits: { maxImageBytes: 1 * MB, maxGifBytes: 1 * MB, maxVideoBytes: 8 * MB },
    };
    videoSized = { ...deps, limits: { ...deps.limits, maxVideoBytes: 512 * MB } };
    threePages = await pdf(3);
    server = await startServer({
      '/deck.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(threePages),
      // Announces 200 MB and keeps sending: the import must stop at the head.
      '/huge.pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(200 * MB) });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        chunk.write('%PDF-1.7\n');
        const pump = () => {
          while (pulledFromHuge < 200 * MB && res.write(chunk)) pulledFromHuge += chunk.length;
        };
        res.on('drain', pump);
        pump();
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a PDF as a document with its page count, fit for LinkedIn only', async () => {
    const stored = await ingest(deps, Readable.from([threePages]));
    expect(stored.facts).toEqual(
      expect.objectContaining({
        contentType: 'application/pdf',
        kind: 'document',
        sizeBytes: threePages.length,
        pageCount: 3,
        width: null,
        height: null,
        durationMs: null,
      }),
    );
    expect(stored.rendition).toBeNull();
    expect(stored.compatibility.linkedin).toEqual({ ok: true, rule: null, message: null });
    expect(stored.compatibility.x).toEqual(expect.objectContaining({ ok: false, rule: 'format' }));
    expect(stored.compatibility.instagram.ok).toBe(false);
    expect(await deps.storage.stat(stored.mediaId)).toEqual({
      size: threePages.length,
      contentType: 'application/pdf',
    });
  });

  it('refuses a PDF of 301 pages with a 400 naming max_pages, storing nothing', async () => {
    const before = (await readdir(path.join(dir, 'store')).catch(() => [])).length;
    await expect(ingest(deps, Readable.from([await pdf(301)]))).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
      details: [expect.objectContaining({ rule: 'max_pages', limit: 300 })],
    });
    expect((await readdir(path.join(dir, 'store')).catch(() => [])).length).toBe(before);
    expect(await readdir(deps.tmpDir)).toEqual([]);
  });

  it('refuses an encrypted PDF with a 400 (rule encrypted)', async () => {
    await expect(ingest(deps, Readable.from([await encryptedPdf()]))).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ rule: 'encrypted' })],
    });
  });

  it('refuses a broken PDF with a 400 (rule decodable), never a 500', async () => {
    const broken = Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R'),
      Buffer.alloc(5000, 0x41),
    ]);
    await expect(ingest(deps, Readable.from([broken]))).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ rule: 'decodable' })],
    });
  });

  it('stops a PDF whose parse outlives the decode deadline (400 decode_timeout), the worker ended', async () => {
    const decoder = {
      limits: { maxInputPixels: 40_000_000, memoryBytes: 256 * MB },
      pool: new DecodePool({ concurrency: 1, memoryBytes: 256 * MB, maxQueue: 1, timeoutMs: 1 }),
    };
    await expect(ingest({ ...deps, decoder }, Readable.from([await pdf(50)]))).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ rule: 'decode_timeout' })],
    });
    expect(decoder.pool.stats).toEqual({ running: 0, waiting: 0, bytesInUse: 0 });
  });

  it('refuses an upload announced past 100 MB once its first bytes say PDF, before reading the body', async () => {
    const head = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(8192, 0x20)]);
    let pulled = 0;
    const body = new Readable({
      read() {
        pulled += head.length;
        this.push(pulled > 64 * MB ? null : head);
      },
    });
    await expect(ingest(videoSized, body, { declaredBytes: 150 * MB })).rejects.toMatchObject({
      status: 413,
      message: expect.stringContaining('100 MB limit for documents (PDF)'),
    });
    expect(pulled).toBeLessThan(1 * MB);
  });

  it('imports a PDF URL and refuses one whose Content-Length is past the document limit, reading its head only', async () => {
    const imported = await importUrl(deps, `${server.base}/deck.pdf`, dev);
    expect(imported.facts).toEqual(expect.objectContaining({ kind: 'document', pageCount: 3 }));
    await expect(importUrl(videoSized, `${server.base}/huge.pdf`, dev)).rejects.toMatchObject({
      status: 413,
      message: expect.stringContaining('100 MB limit for documents (PDF)'),
    });
    expect(pulledFromHuge).toBeLessThan(16 * MB);
  });

  it('verifies a PDF URL: type, size and the pages when the whole file fits in the head', async () => {
    const verified = await verifyUrl({ ...deps, headBytes: 4 * MB }, `${server.base}/deck.pdf`, dev);
    expect(verified.facts).toEqual(
      expect.objectContaining({ contentType: 'application/pdf', kind: 'document', pageCount: 3 }),
    );
    expect(verified.compatibility.linkedin.ok).toBe(true);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalStorage, decoderFromConfig, ingestSlots } from '@svc/media';
import { image } from '../../../libs/media/test/support/fixtures.ts';
import { startServer, type TestServer } from '../../../libs/media/test/support/test-server.ts';
import type { MediaRepository } from '../src/data/media.repository.ts';
import { resolveJobMedia, type ResolveMediaDeps } from '../src/domain/resolve-media.ts';

/** A post's media_urls while this process cannot decode: the service's condition, not the URL's. */
describe('resolveJobMedia with every decoder busy', () => {
  let dir: string;
  let server: TestServer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'resolve-media-'));
    const png = await image('png');
    server = await startServer({
      '/a.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png),
    });
  });

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails the accept with the 503 instead of a 400 naming the URL', async () => {
    const decoder = decoderFromConfig({
      MEDIA_MAX_INPUT_PIXELS: 40_000_000,
      MEDIA_DECODE_CONCURRENCY: 1,
      MEDIA_DECODE_MEMORY_BYTES: 64 << 20,
      MEDIA_DECODE_QUEUE: 0,
      MEDIA_DECODE_TIMEOUT_MS: 15_000,
    });
    const deps: ResolveMediaDeps = {
      media: { findMany: async () => [] } as unknown as MediaRepository,
      ingest: {
        storage: createLocalStorage(path.join(dir, 'store')),
        tmpDir: path.join(dir, 'tmp'),
        limits: { maxImageBytes: 1 << 20, maxGifBytes: 1 << 20, maxVideoBytes: 1 << 20 },
        decoder,
      },
      fetch: { policy: { allowPrivate: true }, deadlineMs: 10_000 },
      quotaBytes: 1 << 30,
      reservationTtlMs: 60_000,
      slots: ingestSlots(4, 2),
      perJob: 2,
    };
    let release!: () => void;
    const held = decoder.pool.run(0, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(resolveJobMedia(deps, 'org_1', [], [`${server.base}/a.png`])).rejects.toMatchObject({
      code: 'service_unavailable',
      status: 503,
    });
    release();
    await held;
  });
});

import { mkdtemp, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { newMediaId, type MediaStorage } from '@svc/media';
import { image, noise } from '../../libs/media/test/support/fixtures.ts';
import { startServer, type TestServer } from '../../libs/media/test/support/test-server.ts';
import { MediaRepository } from '../../services/publisher/src/data/media.repository.ts';
import { MediaOrphanSweep } from '../../services/publisher/src/domain/media-orphan-sweep.ts';
import type { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

const pathOf = (url: string) => new URL(url).pathname;

/** Counts what the gateway asks of media storage. */
function counting(storage: MediaStorage) {
  const counts = { originalsStored: 0, stats: 0 };
  const wrapped: MediaStorage = {
    ...storage,
    list: () => storage.list(),
    putFile: async (key, file, type) => {
      if (!key.endsWith('.jpg')) counts.originalsStored += 1;
      return storage.putFile(key, file, type);
    },
    stat: async (key) => {
      counts.stats += 1;
      return storage.stat(key);
    },
  };
  return { wrapped, counts };
}

/** Ingest guards through the gateway: concurrency, quota before storing, orphans, public media. */
describe('media ingest guards (gateway + publisher)', () => {
  let system: SystemHarness;
  let server: TestServer;
  let photo: Buffer;
  let png: Buffer;
  let storage: ReturnType<typeof counting>;
  const held: ServerResponse[] = [];
  let arrivals = 0;
  let arrived: () => void = () => undefined;

  beforeAll(async () => {
    photo = await noise(500, 500, 'jpeg');
    png = await image('png', 120, 90);
    system = await startSystem({
      services: ['publisher'],
      env: {
        MEDIA_INGEST_ORG_CONCURRENCY: '2',
        // Room for one photo and a half: a second one can only be refused.
        MEDIA_ORG_QUOTA_BYTES: String(Math.floor(photo.length * 1.5)),
        MEDIA_PUBLIC_MISSES_PER_ADDRESS: '5',
      },
      wrapMediaStorage: (inner) => (storage = counting(inner)).wrapped,
    });
    server = await startServer({
      // Answers headers and the PNG's first bytes, then holds the rest until the test lets go.
      '/held.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
        res.write(png.subarray(0, 16));
        held.push(res);
        arrivals += 1;
        arrived();
      },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await system?.close();
  });

  const upload = (bytes: Buffer, as: string) =>
    request(system.gateway).post('/v1/media').set('Authorization', as).attach('file', bytes, 'upload.bin');

  it("answers 429 with Retry-After past the organization's concurrent ingests, and lets another organization in", async () => {
    const org = `Bearer ${await system.token()}`;
    const twoHeld = new Promise<void>((resolve) => {
      arrived = () => arrivals >= 2 && resolve();
    });
    const imports = [0, 1].map(() =>
      request(system.gateway)
        .post('/v1/media')
        .set('Authorization', org)
        .send({ url: `${server.base}/held.png` })
        .then((res) => res),
    );
    await twoHeld;

    const third = await upload(png, org);
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    const verify = await request(system.gateway)
      .post('/v1/media/verify')
      .set('Authorization', org)
      .send({ url: `${server.base}/held.png` });
    expect(verify.status).toBe(429);

    const other = await upload(png, `Bearer ${await system.token()}`);
    expect(other.status).toBe(201);

    for (const res of held.splice(0)) res.end(png.subarray(16));
    expect((await Promise.all(imports)).map((res) => res.status)).toEqual([201, 201]);
    // The slots came back.
    expect((await upload(png, org)).status).toBe(201);
  }, 60_000);

  it('refuses an upload announcing more than the limit (413) before reading its body', async () => {
    const token = await system.token();
    // 600 MB announced, 16 bytes sent: an answer can only come from the headers.
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${system.env.MEDIA_PUBLIC_BASE_URL}/v1/media`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'image/png',
          'content-length': String(600 * 1024 * 1024),
        },
      });
      req.once('response', resolve).once('error', reject);
      req.write(png.subarray(0, 16));
    });
    const body = JSON.parse((await answer.toArray()).join('')) as { error: { code: string; message: string } };
    expect(answer.statusCode).toBe(413);
    expect(body.error).toEqual(
      expect.objectContaining({ code: 'payload_too_large', message: expect.stringContaining('limit for images') }),
    );
  });

  it('reserves quota before storing: of two parallel uploads that do not both fit, one is refused and never stored', async () => {
    const org = `Bearer ${await system.token()}`;
    const before = storage.counts.originalsStored;
    const answers = await Promise.all([upload(photo, org), upload(photo, org)]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 413]);
    const refused = answers.find((res) => res.status === 413)!;
    expect(refused.body.error.details[0]).toEqual(expect.objectContaining({ rule: 'org_storage_quota' }));
    expect(storage.counts.originalsStored - before).toBe(1);

    // The refused upload held nothing back: once the first is deleted the quota is free again.
    const kept = answers.find((res) => res.status === 201)!.body as { media_id: string };
    expect((await request(system.gateway).delete(`/v1/media/${kept.media_id}`).set('Authorization', org)).status).toBe(
      204,
    );
    expect((await upload(photo, org)).status).toBe(201);
  }, 60_000);

  it('stops serving a deleted media at once and never lets caches keep it as immutable', async () => {
    const org = `Bearer ${await system.token()}`;
    const media = (await upload(png, org)).body as { media_id: string; public_url: string };
    const served = await request(system.gateway).get(pathOf(media.public_url));
    expect(served.status).toBe(200);
    expect(served.headers['cache-control']).not.toContain('immutable');
    expect(Number(/max-age=(\d+)/.exec(String(served.headers['cache-control']))?.[1])).toBeLessThanOrEqual(300);

    expect((await request(system.gateway).delete(`/v1/media/${media.media_id}`).set('Authorization', org)).status).toBe(
      204,
    );
    const gone = await request(system.gateway).get(pathOf(media.public_url));
    expect(gone.status).toBe(404);
    expect(String(gone.headers['cache-control'] ?? '')).not.toContain('immutable');
  });

  it('sweeps stored objects no record names once past the grace period, keeping recorded ones', async () => {
    const org = `Bearer ${await system.token()}`;
    const recorded = (await upload(png, org)).body as {
      media_id: string;
      public_url: string;
      jpeg_rendition_url: string;
    };
    // A gateway that died between storing and recording: the bytes are there, no record is.
    const orphan = newMediaId();
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'orphan-')), 'file');
    await writeFile(file, png);
    await storage.wrapped.putFile(orphan, file, 'image/png');

    // Stored but never recorded: not served while it waits for the sweep.
    expect(await storage.wrapped.stat(orphan)).not.toBeNull();
    expect((await request(system.gateway).get(`/media/${orphan}`)).status).toBe(404);

    const publisher = system.workers.publisher!.runtime;
    const sweep = (graceMs: number) =>
      new MediaOrphanSweep({
        storage: storage.wrapped,
        media: new MediaRepository(publisher.db as unknown as PrismaClient),
        logger: publisher.logger,
        graceMs,
        intervalMs: 0,
      }).sweep();
    expect(await sweep(60 * 60_000)).toEqual([]);
    expect(await sweep(0)).toEqual([orphan]);

    expect(await storage.wrapped.stat(orphan)).toBeNull();
    expect((await request(system.gateway).get(`/media/${orphan}`)).status).toBe(404);
    expect((await request(system.gateway).get(pathOf(recorded.public_url))).status).toBe(200);
    expect((await request(system.gateway).get(pathOf(recorded.jpeg_rendition_url))).status).toBe(200);
  });

  it('throttles public media misses per address, and unknown ids never reach storage', async () => {
    const statsBefore = storage.counts.stats;
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 10 && limited === undefined; i += 1) {
      const res = await request(system.gateway).get(`/media/${newMediaId()}`);
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 404).length).toBeLessThanOrEqual(5);
    // No record, no storage lookup (an S3 HEAD); the misses are counted all the same.
    expect(storage.counts.stats - statsBefore).toBe(0);
  });
});

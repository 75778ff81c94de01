import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { uniqueName } from '@svc/testing';
import { ConcurrencySlots, createLocalStorage, ingestSlots, type MediaStorage, type ReleaseSlot } from '@svc/media';
import { image } from '../../libs/media/test/support/fixtures.ts';
import { startServer, type TestServer } from '../../libs/media/test/support/test-server.ts';
import { MediaRepository } from '../../services/publisher/src/data/media.repository.ts';
import { resolveJobMedia, type ResolveMediaDeps } from '../../services/publisher/src/domain/resolve-media.ts';
import type { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

/** Slots that remember how many one organization held at once. */
class WatchedSlots extends ConcurrencySlots {
  held = 0;
  most = 0;
  override acquire(key: string): ReleaseSlot {
    return this.watch(super.acquire(key));
  }

  override async acquireWithin(key: string, waitMs: number): Promise<ReleaseSlot> {
    return this.watch(await super.acquireWithin(key, waitMs));
  }

  private watch(release: ReleaseSlot): ReleaseSlot {
    this.most = Math.max(this.most, (this.held += 1));
    let done = false;
    return () => {
      if (!done) this.held -= 1;
      done = true;
      release();
    };
  }
}

/** A post's `media_urls` imported at accept time: bounded per job, and by the process's ingest slots. */
describe('accept-time media imports (publisher)', () => {
  let system: SystemHarness;
  let server: TestServer;
  let dir: string;
  let requests = 0;
  let deps: (slots: ConcurrencySlots) => ResolveMediaDeps;
  /** Files written to storage so far. */
  let writes: () => number;

  beforeAll(async () => {
    system = await startSystem({ services: ['publisher'] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'accept-import-'));
    const png = await image('png', 40, 30);
    server = await startServer(
      Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `/img-${i}.png`,
          (_req: unknown, res: ServerResponse) => {
            requests += 1;
            res.writeHead(200, { 'content-type': 'image/png' }).end(png);
          },
        ]),
      ),
    );
    const media = new MediaRepository(system.workers.publisher!.runtime.db as unknown as PrismaClient);
    const local = createLocalStorage(path.join(dir, 'store'));
    let puts = 0;
    const storage: MediaStorage = {
      ...local,
      list: () => local.list(),
      putFile: (key, file, type) => ((puts += 1), local.putFile(key, file, type)),
    };
    writes = () => puts;
    deps = (slots) => ({
      media,
      ingest: {
        storage,
        tmpDir: path.join(dir, 'tmp'),
        limits: { maxImageBytes: 1 << 20, maxGifBytes: 1 << 20, maxVideoBytes: 8 << 20 },
      },
      fetch: { policy: { allowPrivate: true }, deadlineMs: 10_000 },
      quotaBytes: 1 << 30,
      reservationTtlMs: 60_000,
      slots,
      perJob: 2,
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await system?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const urls = () => Array.from({ length: 6 }, (_, i) => `${server.base}/img-${i}.png`);

  it('imports the URLs of one post at most two at a time, each recorded', async () => {
    const slots = new WatchedSlots({
      total: 10,
      perKey: 10,
      retryAfterSeconds: 5,
      work: 'imports',
      keyName: 'The organization',
      rule: 'test',
    });
    const rows = await resolveJobMedia(deps(slots), uniqueName('org'), [], urls());
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((row) => row.contentType))).toEqual(new Set(['image/png']));
    expect(slots.most).toBe(2);
    expect(slots.held).toBe(0);
  });

  it('waits in line while the organization holds every slot, and refuses with 429 and Retry-After a post whose deadline passes first', async () => {
    const slots = ingestSlots(4, 2);
    const orgId = uniqueName('org');
    const busy = [slots.acquire(orgId), slots.acquire(orgId)];
    const before = requests;
    const waiting = resolveJobMedia(deps(slots), orgId, [], urls().slice(0, 2));
    const hurried = { ...deps(slots), fetch: { policy: { allowPrivate: true }, deadlineMs: 1 } };
    await expect(resolveJobMedia(hurried, orgId, [], urls())).rejects.toMatchObject({
      code: 'rate_limited',
      status: 429,
      headers: { 'Retry-After': '5' },
    });
    expect(requests).toBe(before);

    for (const release of busy) release();
    expect(await waiting).toHaveLength(2);
    expect(requests).toBe(before + 2);
  });

  it('refuses a post whose media would pass the organization quota (413) before storing any of it', async () => {
    const before = writes();
    const full = { ...deps(ingestSlots(4, 2)), quotaBytes: 100 };
    await expect(resolveJobMedia(full, uniqueName('org'), [], urls().slice(0, 3))).rejects.toMatchObject({
      code: 'payload_too_large',
      details: [expect.objectContaining({ rule: 'org_storage_quota' })],
    });
    expect(writes()).toBe(before);
  });
});

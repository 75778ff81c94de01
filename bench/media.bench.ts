// Memory while a 200 MB video is uploaded into the media library and delivered from storage,
// against reading the same file into memory whole (what deliveries did before the library).
//   pnpm bench   (or: npx jest -c jest.bench.config.js bench/media)
import { createReadStream } from 'node:fs';
import { copyFile, appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLocalStorage } from '@svc/media';
import request from 'supertest';
import { byteReaderOf } from '../libs/providers/src/http/upload.ts';
import { chunkPlan, uploadFile } from '../libs/providers/src/tiktok/tiktok.publish.ts';
import { createNetworkClient } from '../libs/providers/src/http/network-client.ts';
import { startSystem } from '../test/support/system-harness.ts';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_MEDIA_MB ?? 200);

/** Samples RSS every 20 ms until stopped; returns the peak above the level when it started. */
function sampleRss() {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return {
    stop: () => {
      clearInterval(timer);
      // One last sample: synchronous work (a whole-file copy) runs between timer ticks.
      peak = Math.max(peak, process.memoryUsage().rss);
      return { startMb: start / MB, peakMb: peak / MB, growthMb: (peak - start) / MB };
    },
  };
}

const row = (what: string, figures: { startMb: number; peakMb: number; growthMb: number }) =>
  `| ${what} | ${figures.startMb.toFixed(0)} | ${figures.peakMb.toFixed(0)} | ${figures.growthMb.toFixed(0)} |`;

it(`uploads and delivers a ${SIZE_MB} MB video with flat memory`, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'media-bench-'));
  // A real MP4 (moov first) followed by padding: sniffed and measured like any video, SIZE_MB large.
  const file = path.join(dir, 'big.mp4');
  await copyFile(path.resolve(__dirname, '../libs/providers/test/support/fixtures/video.mp4'), file);
  const padding = Buffer.alloc(MB, 7);
  for (let i = 0; i < SIZE_MB; i += 1) await appendFile(file, padding);

  const system = await startSystem({
    services: ['publisher'],
    env: { MEDIA_MAX_VIDEO_BYTES: String((SIZE_MB + 10) * MB) },
  });
  // A network endpoint that counts and discards what it receives (the sandbox keeps uploads in memory).
  let received = 0;
  const sink = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => res.writeHead(201).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const lines: string[] = [];
  try {
    const auth = `Bearer ${await system.token()}`;
    global.gc?.();
    let sampler = sampleRss();
    const res = await request(system.gateway)
      .post('/v1/media')
      .set('Authorization', auth)
      .attach('file', createReadStream(file), 'big.mp4');
    lines.push(row(`upload ${SIZE_MB} MB (multipart, gateway -> storage)`, sampler.stop()));
    expect(res.status).toBe(201);

    const storage = createLocalStorage(system.env.MEDIA_LOCAL_DIR!);
    const stat = (await storage.stat(res.body.media_id as string))!;
    const deps = {
      client: createNetworkClient({
        network: 'tiktok',
        baseURL: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
        timeoutMs: 15_000,
        classify: () => ({ kind: 'transient', networkMessage: 'sink failed' }),
        breaker: {
          resetTimeoutMs: 1000,
          volumeThreshold: 1000,
          errorThresholdPercentage: 50,
          rollingCountTimeoutMs: 10_000,
        },
      }),
      polling: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
      handoffPolling: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
      fetchMedia: () => Promise.reject(new Error('library media are read from storage')),
      upload: { baseTimeoutMs: 15_000, minBytesPerSecond: 256 * 1024, stepAttempts: 1 },
      now: Date.now,
    };
    const item = {
      url: 'unused',
      kind: 'video' as const,
      source: {
        contentType: stat.contentType,
        sizeBytes: stat.size,
        open: (span?: { start: number; end: number }) => storage.read(res.body.media_id as string, span),
      },
    };
    global.gc?.();
    sampler = sampleRss();
    const reader = await byteReaderOf(deps, 'tiktok', item);
    await uploadFile(
      deps,
      `http://127.0.0.1:${(sink.address() as AddressInfo).port}/upload`,
      reader,
      chunkPlan(reader.size),
    );
    lines.push(row(`deliver ${SIZE_MB} MB (TikTok FILE_UPLOAD chunks streamed from storage)`, sampler.stop()));
    expect(received).toBe(stat.size);

    global.gc?.();
    sampler = sampleRss();
    const whole = await readFile(file);
    const copy = Buffer.from(whole);
    lines.push(row(`baseline: the file read into memory whole, then copied (the old delivery)`, sampler.stop()));
    expect(copy.length).toBe(whole.length);
  } finally {
    sink.closeAllConnections();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
    await system.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    ['| step | RSS before (MB) | peak RSS (MB) | growth (MB) |', '| --- | --- | --- | --- |', ...lines].join('\n'),
  );
});

// media ingest: uploads per second through POST /v1/media (multipart: spooled, sniffed, measured,
// a JPEG rendition made of every PNG, stored, recorded by the publisher), against a bare node:http
// server that only writes the same request bodies to disk and hashes them (the baseline: what
// receiving and keeping the bytes costs on this machine with nothing else done to them). Both are
// their own processes and get the same files, in the same order, from the same client.
import { noise, video } from '../../libs/media/test/support/fixtures.ts';
import type { BenchSystem } from '../support/bench-system.ts';
import { withChildServer } from '../support/child-server.ts';
import { percentile, type BenchResult } from '../support/results.ts';

export interface MediaIngestOptions {
  /** Uploads measured against each server (after a warm-up of one of each file). */
  uploads: number;
  /** Uploads in flight at once. */
  concurrency: number;
}

interface UploadFile {
  kind: string;
  name: string;
  type: string;
  bytes: Buffer;
}

const BARE_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const crypto = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bare-ingest-'));
let n = 0;
const server = http.createServer((req, res) => {
  const file = path.join(dir, String(n++));
  const hash = crypto.createHash('sha256');
  req.on('data', (chunk) => hash.update(chunk));
  req.pipe(fs.createWriteStream(file)).on('finish', () => {
    hash.digest('hex');
    fs.rmSync(file, { force: true });
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => { fs.rmSync(dir, { recursive: true, force: true }); process.exit(0); });
`;

/** A phone photo (JPEG), a screenshot-like PNG (which gets a JPEG rendition) and a short clip. */
async function files(): Promise<UploadFile[]> {
  return [
    { kind: 'jpeg', name: 'photo.jpg', type: 'image/jpeg', bytes: await noise(1920, 1080, 'jpeg') },
    { kind: 'png', name: 'screen.png', type: 'image/png', bytes: await noise(1080, 1080, 'png') },
    { kind: 'mp4', name: 'clip.mp4', type: 'video/mp4', bytes: await video(2, 640, 360, '800k', true) },
  ];
}

interface Run {
  perSecond: number;
  mbPerSecond: number;
  latencies: Map<string, number[]>;
  refused: string[];
}

async function upload(url: string, auth: string, file: UploadFile): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const response = await fetch(url, { method: 'POST', headers: { authorization: auth }, body: form });
  await response.arrayBuffer();
  return response.status;
}

async function run(url: string, auth: string, list: UploadFile[], options: MediaIngestOptions): Promise<Run> {
  for (const file of list) await upload(url, auth, file);
  const latencies = new Map(list.map((file) => [file.kind, [] as number[]]));
  const refused: string[] = [];
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.uploads) {
      const file = list[next++ % list.length]!;
      const sent = performance.now();
      const status = await upload(url, auth, file);
      latencies.get(file.kind)!.push(performance.now() - sent);
      if (status !== 201) refused.push(`${file.kind} ${status}`);
      bytes += file.bytes.length;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: options.uploads / seconds, mbPerSecond: bytes / 1024 / 1024 / seconds, latencies, refused };
}

const p50s = (latencies: Map<string, number[]>, prefix = '') =>
  Object.fromEntries(
    [...latencies].map(([kind, values]) => [
      `${prefix}${kind} p50 ms`,
      Math.round(
        percentile(
          values.sort((a, b) => a - b),
          0.5,
        ),
      ),
    ]),
  );

export async function benchMediaIngest(system: BenchSystem, options: MediaIngestOptions): Promise<BenchResult> {
  const list = await files();
  const baseline = await withChildServer(BARE_SERVER, (base) => run(`${base}/v1/media`, system.auth, list, options));
  const rssBefore = system.rss().gateway!;
  const api = await run(`${system.api}/v1/media`, system.auth, list, options);
  if (api.refused.length > 0) throw new Error(`media uploads refused: ${api.refused.slice(0, 5).join(', ')}`);
  return {
    bench: 'media-ingest',
    params: {
      uploads: options.uploads,
      concurrency: options.concurrency,
      files: list.map((file) => `${file.kind} ${Math.round(file.bytes.length / 1024)} KB`).join(', '),
    },
    figures: [
      {
        name: 'media ingest: POST /v1/media (JPEG, PNG with rendition, MP4)',
        value: api.perSecond,
        unit: 'uploads/s',
        baseline: baseline.perSecond,
        baselineName: 'bare node:http writing the bodies to disk',
        detail: {
          'MB/s': api.mbPerSecond,
          'baseline MB/s': baseline.mbPerSecond,
          ...p50s(api.latencies),
          ...p50s(baseline.latencies, 'baseline '),
          'gateway RSS before MB': rssBefore,
          'gateway RSS after MB': system.rss().gateway!,
        },
      },
    ],
  };
}

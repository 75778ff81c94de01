// media ingest: uploads per second through POST /v1/media (JPEG, PNG with its JPEG rendition, MP4)
// vs a bare node:http server writing the same bodies to disk (bench/scenarios/media-ingest.ts).
//   scripts/bench media-ingest   (or: pnpm build && pnpm bench bench/media-ingest)
//   BENCH_MEDIA_UPLOADS (150), BENCH_MEDIA_CONCURRENCY (2)
import { benchMediaIngest } from './scenarios/media-ingest.ts';
import { serviceEnvFromEnv, startBenchSystem } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const uploads = Number(process.env.BENCH_MEDIA_UPLOADS ?? 150);
const concurrency = Number(process.env.BENCH_MEDIA_CONCURRENCY ?? 2);

it(`ingests ${uploads} uploads, ${concurrency} at a time, vs a bare server writing them to disk`, async () => {
  const system = await startBenchSystem({ env: serviceEnvFromEnv() });
  try {
    const result = await benchMediaIngest(system, { uploads, concurrency });
    recordResult(result);
    console.log(describeResult(result));
  } finally {
    await system.close();
  }
}, 600_000);

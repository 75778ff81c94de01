// What counting a post against the plan costs on the accept path: the job's transaction (job row,
// delivery, outbox row) with and without PlanLimitsRepository.take() at its end, 20 at a time, for
// jobs spread over many organizations and for one organization taking every job (its usage row is the
// hot spot: those transactions serialize on it from the upsert to the commit). Pool: the services' 10.
//   pnpm bench   (or: npx jest -c jest.bench.config.js bench/post-quota)
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEnvelope, systemProbe } from '@svc/contracts';
import { createPrismaAdapter, enqueueOutbox } from '@svc/db';
import { createTestDatabase } from '@svc/testing';
import { PlanLimitsRepository } from '../services/publisher/src/data/plan-limits.repository.ts';
import { PrismaClient } from '../services/publisher/src/generated/prisma/client.ts';

const N = Number(process.env.BENCH_JOBS ?? 2000);
const CONCURRENCY = 20;

it(`accepts ${N} jobs with and without the posts quota`, async () => {
  const database = await createTestDatabase({
    prefix: 'bench-quota',
    serviceDir: path.resolve(__dirname, '../services/publisher'),
  });
  const db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  const limits = new PlanLimitsRepository(db, N * 10);
  const job = (orgId: string, quota: boolean) =>
    db.$transaction(async (tx) => {
      const id = randomUUID();
      await tx.job.create({
        data: { id, orgId, status: 'queued', text: 'bench', accountIds: ['a1'], providers: ['x'] },
      });
      await tx.delivery.createMany({
        data: [{ id: randomUUID(), jobId: id, orgId, accountId: 'a1', provider: 'x', position: 0, status: 'pending' }],
      });
      await enqueueOutbox(tx, [createEnvelope(systemProbe, { n: 1 }, { orgId, requestId: null })]);
      if (quota && !(await limits.take(orgId, tx))) throw new Error('quota exhausted in the benchmark');
    });
  async function run(label: string, orgOf: (n: number) => string, quota: boolean): Promise<string> {
    const started = performance.now();
    for (let i = 0; i < N; i += CONCURRENCY)
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, N - i) }, (_, k) => job(orgOf(i + k), quota)));
    const ms = performance.now() - started;
    return `${label}: ${ms.toFixed(0)} ms (${Math.round((N / ms) * 1000)} jobs/s)`;
  }
  try {
    await run('warm-up', (n) => `warm_${n % 50}`, true);
    const lines = [
      `jobs: ${N}, ${CONCURRENCY} transactions at a time`,
      await run('no quota, 200 organizations  [baseline]', (n) => `org_${n % 200}`, false),
      await run('quota, 200 organizations', (n) => `org_${n % 200}`, true),
      await run('no quota, one organization', () => 'hot_plain', false),
      await run('quota, one organization (hot usage row)', () => 'hot_quota', true),
    ];
    console.log(lines.join('\n'));
  } finally {
    await db.$disconnect();
    await database.drop();
  }
});

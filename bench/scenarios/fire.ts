// fire: many jobs scheduled for the same second (the publisher run with SCHEDULE_MIN_LEAD_SECONDS=0),
// then how late each left `scheduled`: queued_at - scheduled_at, read from the publisher's database.
import { uniqueName } from '@svc/testing';
import type { BenchSystem } from '../support/bench-system.ts';
import { publishJobs, sleep } from '../support/publish-jobs.ts';
import { percentile, type BenchResult } from '../support/results.ts';

export interface FireOptions {
  jobs: number;
  /** How far ahead the jobs are scheduled: every accept must be done before they are due. */
  leadSeconds: number;
  acceptConcurrency: number;
  /** Gives up (and fails) when jobs are still scheduled this long after they were due. */
  timeoutMs: number;
}

export async function benchFire(system: BenchSystem, options: FireOptions): Promise<BenchResult> {
  const [account] = await system.connectXAccounts(1);
  // Due on a whole second, as a user picking a time would.
  const due = new Date(Math.ceil((Date.now() + options.leadSeconds * 1000) / 1000) * 1000);
  const prefix = uniqueName('fire');
  const requests = Array.from({ length: options.jobs }, (_, n) => ({ account_ids: [account!], text: `${prefix} #${n}`, scheduled_at: due.toISOString() }));
  const jobs = await publishJobs(system, requests, options.acceptConcurrency);
  if (Date.now() >= due.getTime()) throw new Error(`accepting ${options.jobs} jobs took past their due time: raise the lead (BENCH_FIRE_LEAD_S, now ${options.leadSeconds})`);

  const db = await system.database('publisher');
  try {
    let lateness: number[] = [];
    for (;;) {
      await sleep(250);
      const { rows } = await db.query<{ late_ms: number }>(
        'SELECT (extract(epoch FROM queued_at - scheduled_at) * 1000)::float8 AS late_ms FROM jobs WHERE id = ANY($1::uuid[]) AND queued_at IS NOT NULL',
        [jobs],
      );
      lateness = rows.map((row) => row.late_ms).sort((a, b) => a - b);
      if (lateness.length === jobs.length) break;
      if (Date.now() - due.getTime() > options.timeoutMs) throw new Error(`${jobs.length - lateness.length} of ${jobs.length} jobs still scheduled ${options.timeoutMs} ms after due`);
    }
    return {
      bench: 'fire',
      params: { jobs: options.jobs, lead_seconds: options.leadSeconds },
      figures: [
        {
          name: `fire: ${options.jobs} jobs due the same second, due -> queued`,
          value: percentile(lateness, 0.99),
          unit: 'ms p99',
          target: 'p99 <= 1,000 ms',
          detail: { 'p50 ms': percentile(lateness, 0.5), 'max ms': lateness[lateness.length - 1]!, 'min ms': lateness[0]! },
        },
      ],
    };
  } finally {
    await db.end();
  }
}

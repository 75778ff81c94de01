// What the soak's open jobs wait for, when they do not finish in time: the rows the publisher and the
// scheduler hold for them and what the services logged beyond the routine. The soak's systems and
// their databases are deleted when it ends, so a drain that times out says here, once, why.
import type pg from 'pg';
import type { BenchSystem } from '../support/bench-system.ts';

/** Open jobs described in full; the rest are counted. */
const JOBS_SHOWN = 10;
/** Each process's last log lines kept in the report. */
const LINES_SHOWN = 20;
/** Warnings and worse, by the label the services log (libs/logger): below them, only the lines that say a delivery waits. */
const SERIOUS = new Set<unknown>(['warn', 'error', 'fatal']);
const WAITING = /retried|uncertain|reconciled|woken|parked|redispatch|overdue/;

async function publisherRows(publisher: pg.Client, ids: string[]): Promise<string[]> {
  const { rows: jobs } = await publisher.query(
    `SELECT id, status, scheduled_at, queued_at, started_at, finished_deliveries, created_at FROM jobs WHERE id = ANY($1::uuid[]) ORDER BY created_at`,
    [ids],
  );
  const { rows: deliveries } = await publisher.query(
    `SELECT job_id, status, attempts, error_code, next_attempt_at, lease_until, org_wait_since, org_woken_until,
            reconcile_since, reconcile_tries, quota_deferrals, updated_at
       FROM deliveries WHERE job_id = ANY($1::uuid[]) AND finished_at IS NULL ORDER BY job_id, position`,
    [ids],
  );
  return [
    ...jobs.map((job) => `job ${JSON.stringify(job)}`),
    ...deliveries.map((delivery) => `  unfinished delivery ${JSON.stringify(delivery)}`),
  ];
}

async function schedulerRows(system: Pick<BenchSystem, 'database'>, ids: string[]): Promise<string[]> {
  const scheduler = await system.database('scheduler');
  try {
    const { rows } = await scheduler.query(
      `SELECT job_id, status, run_at, fired_at, redispatches FROM scheduled_jobs WHERE job_id = ANY($1::uuid[])`,
      [ids],
    );
    return rows.map((row) => `scheduler ${JSON.stringify(row)}`);
  } finally {
    await scheduler.end();
  }
}

/** Each process's last warnings, errors and waiting-delivery lines, prefixed with its name. */
function unusualLines(system: Pick<BenchSystem, 'processes'>): string[] {
  return [...system.processes].flatMap(([name, service]) => {
    const unusual = service.lines.filter((line) => {
      try {
        const record = JSON.parse(line) as { level?: string; msg?: string };
        return SERIOUS.has(record.level) || WAITING.test(record.msg ?? '');
      } catch {
        return line.trim() !== '';
      }
    });
    return unusual.slice(-LINES_SHOWN).map((line) => `${name}: ${line}`);
  });
}

/** A report of the open jobs (the first JOBS_SHOWN in full), for the error a timed-out drain throws. */
export async function describeOpenJobs(
  system: Pick<BenchSystem, 'database' | 'processes'>,
  publisher: pg.Client,
  open: string[],
): Promise<string> {
  const shown = open.slice(0, JOBS_SHOWN);
  const sections = await Promise.all([
    publisherRows(publisher, shown),
    schedulerRows(system, shown).catch((error: unknown) => [`scheduler rows not read: ${String(error)}`]),
  ]);
  return [
    `${open.length} open job(s), at ${new Date().toISOString()}; the first ${shown.length}:`,
    ...sections.flat(),
    servicesSaid(system),
  ].join('\n');
}

/** What the services logged beyond the routine, for an error the soak throws before its systems are deleted. */
export function servicesSaid(system: Pick<BenchSystem, 'processes'>): string {
  const lines = unusualLines(system);
  if (lines.length === 0) return 'no service logged a warning, an error or a waiting delivery';
  return ["the services' warnings, errors and waiting deliveries (last of each):", ...lines].join('\n');
}

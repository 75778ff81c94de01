// fire: many jobs scheduled for the same second (the publisher run with SCHEDULE_MIN_LEAD_SECONDS=0),
// then how late each left `scheduled`: queued_at - scheduled_at, read from the publisher's database.
import { createNames } from '@svc/messaging';
import { TEST_AMQP_URL, uniqueName } from '@svc/testing';
import amqp from 'amqplib';
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
  const requests = Array.from({ length: options.jobs }, (_, n) => ({
    account_ids: [account!],
    text: `${prefix} #${n}`,
    scheduled_at: due.toISOString(),
  }));
  const jobs = await publishJobs(system, requests, options.acceptConcurrency);
  if (Date.now() >= due.getTime())
    throw new Error(
      `accepting ${options.jobs} jobs took past their due time: raise the lead (BENCH_FIRE_LEAD_S, now ${options.leadSeconds})`,
    );

  const db = await system.database('publisher');
  const dispatches = await watchDispatches(system.namespace);
  try {
    // `queued_at` is now() in the dispatching transaction, i.e. when it began: its commit is later.
    // So the jobs are also watched every 50 ms from the due time, and the moment each was first seen
    // queued (committed) is kept too: an upper bound, off by at most the watch period.
    const seen: number[] = [];
    let waiting = jobs;
    await sleep(Math.max(0, due.getTime() - Date.now() - 100));
    while (waiting.length > 0) {
      await sleep(50);
      const { rows } = await db.query<{ id: string }>(
        'SELECT id::text AS id FROM jobs WHERE id = ANY($1::uuid[]) AND queued_at IS NOT NULL',
        [waiting],
      );
      const now = Date.now() - due.getTime();
      const queued = new Set(rows.map((row) => row.id));
      for (let n = 0; n < queued.size; n += 1) seen.push(now);
      waiting = waiting.filter((id) => !queued.has(id));
      if (now > options.timeoutMs)
        throw new Error(`${waiting.length} of ${jobs.length} jobs still scheduled ${options.timeoutMs} ms after due`);
    }
    const { rows } = await db.query<{ late_ms: number }>(
      'SELECT (extract(epoch FROM queued_at - scheduled_at) * 1000)::float8 AS late_ms FROM jobs WHERE id = ANY($1::uuid[])',
      [jobs],
    );
    const lateness = rows.map((row) => row.late_ms).sort((a, b) => a - b);
    const stages = {
      fired: await claimLateness(system, due),
      relayed: dispatches.jobLateness(due),
      messages: dispatches.messages(),
    };
    return {
      bench: 'fire',
      params: { jobs: options.jobs, lead_seconds: options.leadSeconds },
      figures: [
        {
          name: `fire: ${options.jobs} jobs due the same second, due -> queued`,
          value: percentile(lateness, 0.99),
          unit: 'ms p99',
          target: 'p99 <= 1,000 ms',
          detail: {
            'p50 ms': percentile(lateness, 0.5),
            'max ms': lateness[lateness.length - 1]!,
            'min ms': lateness[0]!,
            'seen committed p99 ms': percentile(seen, 0.99),
            'claimed p50 ms': percentile(stages.fired, 0.5),
            'claimed p99 ms': percentile(stages.fired, 0.99),
            'relayed p50 ms': percentile(stages.relayed, 0.5),
            'relayed p99 ms': percentile(stages.relayed, 0.99),
            'dispatch messages': stages.messages,
          },
        },
      ],
    };
  } finally {
    await dispatches.close();
    await db.end();
  }
}

/** How late the scheduler claimed each job (`fired_at`, its database clock), ascending. */
async function claimLateness(system: BenchSystem, due: Date): Promise<number[]> {
  const db = await system.database('scheduler');
  try {
    const { rows } = await db.query<{ ms: number }>(
      'SELECT (extract(epoch FROM fired_at - run_at) * 1000)::float8 AS ms FROM scheduled_jobs WHERE run_at = $1 AND fired_at IS NOT NULL ORDER BY 1',
      [due],
    );
    return rows.map((row) => row.ms);
  } finally {
    await db.end();
  }
}

/**
 * Watches the dispatch commands the scheduler publishes (an exclusive queue bound to their types,
 * deleted with its connection), noting when each arrived: the outbox deletes a row once sent, so
 * the broker is where "relayed" is seen. A copy of a message already seen (at-least-once relay) is
 * not counted again.
 */
async function watchDispatches(namespace: string) {
  const connection = await amqp.connect(TEST_AMQP_URL);
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  const { commands } = createNames(namespace);
  await channel.assertExchange(commands, 'topic', { durable: true });
  for (const type of ['publisher.job_dispatch.v1', 'publisher.job_dispatch.v2'])
    await channel.bindQueue(queue, commands, type);
  const arrivals = new Map<string, { at: number; jobs: number }>();
  await channel.consume(
    queue,
    (message) => {
      if (message === null) return;
      const envelope = JSON.parse(message.content.toString('utf8')) as {
        message_id: string;
        payload: { jobs?: unknown[] };
      };
      if (!arrivals.has(envelope.message_id))
        arrivals.set(envelope.message_id, { at: Date.now(), jobs: envelope.payload.jobs?.length ?? 1 });
    },
    { noAck: true },
  );
  return {
    messages: () => arrivals.size,
    /** Per job, how long after `due` its command arrived, ascending. */
    jobLateness: (due: Date) =>
      [...arrivals.values()]
        .flatMap(({ at, jobs }) => Array.from({ length: jobs }, () => at - due.getTime()))
        .sort((a, b) => a - b),
    close: () => connection.close(),
  };
}

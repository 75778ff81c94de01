// deliver: jobs x X accounts accepted through the API, delivered by the publisher to the sandbox,
// counted there (exactly once: no loss, no duplicate), deliveries/s from the first accept to the last
// job terminal (the publisher's finished_at). Baseline: the same number of messages published with
// confirms and consumed with raw amqplib on a throwaway queue, deleted after. Also the RSS of every
// service process idle and at its peak during the run.
import amqp from 'amqplib';
import { TEST_AMQP_URL, uniqueName } from '@svc/testing';
import { byService, type BenchSystem } from '../support/bench-system.ts';
import { machineCpu, machineCpuDetail } from '../support/machine-cpu.ts';
import { publishJobs, sleep } from '../support/publish-jobs.ts';
import type { BenchFigure, BenchResult } from '../support/results.ts';

export interface DeliverOptions {
  jobs: number;
  accounts: number;
  /** Accept requests in flight. */
  acceptConcurrency: number;
  /** Gives up (and fails) when the jobs are not all terminal this long after the last accept. */
  timeoutMs: number;
  /** X answers every create call this late (the sandbox's create latency), as a real network does; default none. */
  xCreateLatencyMs?: number;
}

/** Messages/s of a confirmed publish (200 in flight) and a consume (prefetch 200, one ack each) of `count` persistent messages. */
export async function rawAmqpRate(count: number): Promise<number> {
  const connection = await amqp.connect(TEST_AMQP_URL);
  const queue = uniqueName('bench-raw-amqp');
  try {
    const publishing = await connection.createConfirmChannel();
    const consuming = await connection.createChannel();
    await publishing.assertQueue(queue, { durable: true });
    await consuming.prefetch(200);
    let seen = 0;
    let drained!: () => void;
    const done = new Promise<void>((resolve) => (drained = resolve));
    await consuming.consume(queue, (message) => {
      if (message === null) return;
      consuming.ack(message);
      if (++seen === count) drained();
    });
    const body = Buffer.from(
      JSON.stringify({
        type: 'publisher.deliver.v1',
        job_id: '00000000-0000-0000-0000-000000000000',
        account_id: 'acc_00000000000000000000',
      }),
    );
    const started = performance.now();
    for (let i = 0; i < count; i += 200) {
      for (let k = i; k < Math.min(count, i + 200); k += 1)
        publishing.sendToQueue(queue, body, { persistent: true, contentType: 'application/json' });
      await publishing.waitForConfirms();
    }
    await done;
    return (count / (performance.now() - started)) * 1000;
  } finally {
    const cleanup = await connection.createChannel();
    await cleanup.deleteQueue(queue);
    await connection.close();
  }
}

export async function benchDeliver(system: BenchSystem, options: DeliverOptions): Promise<BenchResult> {
  const targets = options.jobs * options.accounts;
  const accounts = await system.connectXAccounts(options.accounts);
  const latencyMs = options.xCreateLatencyMs ?? 0;
  await system.sandbox.createLatency('x', latencyMs);
  const baselineRate = await rawAmqpRate(targets);

  const idle = system.rss();
  const peak = { ...idle };
  const sampler = setInterval(() => {
    for (const [name, mb] of Object.entries(system.rss())) peak[name] = Math.max(peak[name] ?? 0, mb);
  }, 200);
  const db = await system.database('publisher');
  try {
    const prefix = uniqueName('deliver');
    const requests = Array.from({ length: options.jobs }, (_, n) => ({
      account_ids: accounts,
      text: `${prefix} #${n}`,
    }));
    const cpuBefore = byService(system.cpuMs());
    const machineBefore = machineCpu();
    const started = Date.now();
    const jobs = await publishJobs(system, requests, options.acceptConcurrency);
    const accepted = Date.now();
    let state: { done: number; published: number; last: Date | null } = { done: 0, published: 0, last: null };
    while (state.done < jobs.length) {
      if (Date.now() - accepted > options.timeoutMs)
        throw new Error(
          `${jobs.length - state.done} of ${jobs.length} jobs not terminal ${options.timeoutMs} ms after the last accept`,
        );
      await sleep(250);
      const { rows } = await db.query<{ done: string; published: string; last: Date | null }>(
        `SELECT count(*) FILTER (WHERE finished_at IS NOT NULL) AS done, count(*) FILTER (WHERE status = 'published') AS published, max(finished_at) AS last
           FROM jobs WHERE id = ANY($1::uuid[])`,
        [jobs],
      );
      state = { done: Number(rows[0]!.done), published: Number(rows[0]!.published), last: rows[0]!.last };
    }
    clearInterval(sampler);
    const cpuAfter = byService(system.cpuMs());
    const machine = machineCpuDetail(machineBefore, machineCpu(), targets, 'delivery');
    const elapsedMs = state.last!.getTime() - started;

    // Exactly once, from the network's own records: every job's text once on every account.
    const posts = (await system.sandbox.posts('x')).filter((post) => post.text.startsWith(`${prefix} #`));
    const seen = new Map<string, number>();
    for (const post of posts)
      seen.set(`${post.account}|${post.text}`, (seen.get(`${post.account}|${post.text}`) ?? 0) + 1);
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    const missing = targets - seen.size;
    if (duplicates > 0 || missing !== 0 || posts.length !== targets) {
      throw new Error(
        `not exactly once: ${posts.length} posts on X for ${targets} targets (${missing} targets missing, ${duplicates} posted more than once)`,
      );
    }

    const rate = (targets / elapsedMs) * 1000;
    const figures: BenchFigure[] = [
      {
        name: `deliver: ${options.jobs} jobs x ${options.accounts} X accounts${latencyMs > 0 ? `, X answering in ${latencyMs} ms` : ''}, accept to all terminal`,
        value: rate,
        unit: 'deliveries/s',
        baseline: baselineRate,
        baselineName: 'raw amqplib confirm + consume',
        target: '>= 1,000 deliveries/s',
        detail: {
          ...(latencyMs > 0 ? { 'X create latency ms': latencyMs } : {}),
          seconds: elapsedMs / 1000,
          'accepted in s': (accepted - started) / 1000,
          'jobs published': state.published,
          'posts on X': posts.length,
          duplicates,
          missing,
          // True CPU (/proc), each service's replicas added up: the figure to compare changes by on a noisy machine.
          ...Object.fromEntries(
            Object.entries(cpuAfter).map(([name, ms]) => [
              `${name} cpu ms/delivery`,
              Math.round(((ms - cpuBefore[name as keyof typeof cpuBefore]) / targets) * 100) / 100,
            ]),
          ),
          ...machine,
        },
      },
      ...Object.keys(idle).map((name): BenchFigure => ({
        name: `RSS ${name}`,
        value: peak[name]!,
        unit: 'MB peak under deliver',
        target: '< 150 MB idle, < 256 MB under load',
        detail: { 'idle MB': idle[name]! },
      })),
    ];
    return {
      bench: 'deliver',
      params: {
        jobs: options.jobs,
        accounts: options.accounts,
        targets,
        accept_concurrency: options.acceptConcurrency,
      },
      figures,
    };
  } finally {
    clearInterval(sampler);
    await db.end();
  }
}

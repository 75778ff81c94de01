// The soak's load: a closed loop that keeps about `backlog` jobs of one system open (accepted, not yet
// terminal), so its publisher always has work and the rate measured is its throughput. It can pause
// (the twin comparison feeds one system at a time) and, at the end, checks every job's text is on the
// sandbox's X exactly once.
import { uniqueName } from '@svc/testing';
import type pg from 'pg';
import type { BenchSystem } from '../support/bench-system.ts';
import { sleep } from '../support/publish-jobs.ts';
import { describeOpenJobs, servicesSaid } from './soak-open-jobs.ts';

/** Deliveries of the organization finished in [from, to), through deliveries_org_id_finished_at_idx (no scan of the table). */
export async function finishedBetween(publisher: pg.Client, orgId: string, from: Date, to: Date): Promise<number> {
  const {
    rows: [row],
  } = await publisher.query<{ n: string }>(
    'SELECT count(*) AS n FROM deliveries WHERE org_id = $3 AND finished_at >= $1 AND finished_at < $2',
    [from, to, orgId],
  );
  return Number(row!.n);
}

export interface FeederOptions {
  /** Jobs kept open at once. */
  backlog: number;
  /** Accept requests in flight while topping the backlog up. */
  acceptConcurrency: number;
  /** Starts paused (until resume()). */
  paused?: boolean;
}

export interface SoakFeeder {
  /** Jobs submitted so far. */
  readonly jobs: number;
  /** Stops submitting (jobs already accepted go on being delivered). */
  pause(): void;
  resume(): void;
  /** Waits until every job submitted so far is finished. */
  drain(timeoutMs: number): Promise<void>;
  /** Throws what stopped the loop, if anything did (a refused accept ends the soak at once). */
  check(): void;
  /** Stops the loop (on a failure elsewhere: nothing is checked). */
  stop(): Promise<void>;
  /** Stops the loop, drains, and checks every target was posted on X exactly once; returns the targets. */
  finish(drainTimeoutMs: number): Promise<number>;
}

/**
 * One in ten jobs carries an Idempotency-Key (records the gateway keeps), one in ten is scheduled two
 * seconds ahead (rows the scheduler keeps): the soak exercises what grows with use. `publisher` is a
 * client on the system's publisher database.
 */
export function startFeeder(
  system: BenchSystem,
  publisher: pg.Client,
  accounts: string[],
  options: FeederOptions,
): SoakFeeder {
  const prefix = uniqueName('soak');
  const jobIds: string[] = [];
  // Asks only about the jobs it still counts as open (primary-key lookups): counting every unfinished
  // job scanned the whole jobs table a dozen times a second, a cost that grew with the run.
  const unfinished = new Set<string>();
  let submitted = 0;
  let paused = options.paused ?? false;
  let stopping = false;
  let failure: unknown;

  const submit = async (): Promise<void> => {
    const n = submitted++;
    const headers: Record<string, string> = { authorization: system.auth, 'content-type': 'application/json' };
    if (n % 10 === 3) headers['idempotency-key'] = `${prefix}-${n}`;
    const body = {
      account_ids: accounts,
      text: `${prefix} #${n}`,
      ...(n % 10 === 7 ? { scheduled_at: new Date(Date.now() + 2000).toISOString() } : {}),
    };
    const res = await fetch(`${system.api}/v1/publish`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 202) {
      // The systems are deleted when the soak ends: what their services logged is said here or never.
      throw new Error(`soak job ${n} was not accepted: ${res.status} ${await res.text()}\n${servicesSaid(system)}`);
    }
    const { job_id: id } = (await res.json()) as { job_id: string };
    jobIds.push(id);
    unfinished.add(id);
  };
  const open = async () => {
    const { rows } = await publisher.query<{ id: string }>(
      'SELECT id FROM jobs WHERE id = ANY($1::uuid[]) AND finished_at IS NOT NULL',
      [[...unfinished]],
    );
    for (const row of rows) unfinished.delete(row.id);
    return unfinished.size;
  };
  const loop = (async () => {
    while (!stopping) {
      const missing = paused ? 0 : options.backlog - (await open());
      if (missing > 0)
        await Promise.all(Array.from({ length: Math.min(missing, options.acceptConcurrency) }, () => submit()));
      else await sleep(100);
    }
  })().catch((error: unknown) => {
    failure = error;
  });

  const stop = async () => {
    stopping = true;
    await loop;
  };
  const check = () => {
    if (failure !== undefined) throw failure;
  };
  const drain = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while ((await open()) > 0) {
      check();
      if (Date.now() > deadline) {
        const report = await describeOpenJobs(system, publisher, [...unfinished]).catch(
          (error: unknown) => `(not described: ${String(error)})`,
        );
        throw new Error(`the soak's open jobs did not finish in ${timeoutMs / 1000} s\n${report}`);
      }
      await sleep(100);
    }
  };
  return {
    get jobs() {
      return jobIds.length;
    },
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    drain,
    check,
    stop,
    finish: async (drainTimeoutMs) => {
      await stop();
      check();
      await drain(drainTimeoutMs);
      const posts = (await system.sandbox.posts('x')).filter((post) => post.text.startsWith(`${prefix} #`));
      const keys = new Set(posts.map((post) => `${post.account}|${post.text}`));
      const targets = jobIds.length * accounts.length;
      if (keys.size !== targets || posts.length !== targets) {
        throw new Error(`not exactly once: ${posts.length} posts (${keys.size} distinct) on X for ${targets} targets`);
      }
      return targets;
    },
  };
}

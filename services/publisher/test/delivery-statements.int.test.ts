import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { claimDeliveries } from '../src/data/delivery-claim.ts';
import { recordThreadPart } from '../src/data/thread-parts.ts';
import {
  recordOutcomesClosingJobs,
  recordOutcomesUnlessLast,
  type OutcomeToRecord,
} from '../src/data/delivery-outcome.ts';
import { recordClosingOutcomes } from '../src/domain/finish-job.ts';
import { DELIVERY_SESSION_SETTINGS, readDeliveriesToRun } from '../src/data/delivery-to-run.ts';
import { wakeWaitingDeliveries } from '../src/data/org-waiting.ts';
import { resetFailedTargets } from '../src/data/retry-targets.ts';
import { insertPendingBacklog, planningSql, tableReads } from './statement-plans.ts';

/**
 * The delivery's grouped statements (publisher database only): the read, the claim and the outcome
 * of many deliveries in one statement each, every delivery's result its own.
 */
describe('grouped delivery statements', () => {
  let database: TestDatabase;
  let sql: PgRawSql;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-outcomes', serviceDir: path.resolve(__dirname, '..') });
    sql = createPgRawSql(database.connection, { max: 12, onIdleError: () => undefined });
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  /** A job of `targets` deliveries, all in flight on attempt 1 (or `status`, with the job `jobStatus`). */
  async function job(
    targets: number,
    options: { orgId?: string; status?: string; jobStatus?: string } = {},
  ): Promise<{ jobId: string; ids: string[] }> {
    const jobId = randomUUID();
    const orgId = options.orgId ?? 'org_1';
    const ids = Array.from({ length: targets }, () => randomUUID());
    await sql.$executeRawUnsafe(
      `INSERT INTO jobs (id, org_id, status, text, account_ids, providers, updated_at)
       VALUES ($1::uuid, $2, $4, 'hello', $3::text[], ARRAY['x'], now())`,
      jobId,
      orgId,
      ids.map((_, i) => `acct_${i}`),
      options.jobStatus ?? 'processing',
    );
    await sql.$executeRawUnsafe(
      `INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, attempts, updated_at)
       SELECT id, $1::uuid, $2, 'acct_' || (n - 1), 'x', (n - 1)::int, $4, CASE WHEN $4 = 'in_flight' THEN 1 ELSE 0 END, now() FROM unnest($3::uuid[]) WITH ORDINALITY AS t(id, n)`,
      jobId,
      orgId,
      ids,
      options.status ?? 'in_flight',
    );
    return { jobId, ids };
  }

  const published = (deliveryId: string, attempt = 1): OutcomeToRecord => ({
    deliveryId,
    attempt,
    outcome: { kind: 'published', platformPostId: `post_${deliveryId}`, url: `https://x.test/${deliveryId}` },
  });
  const failed = (deliveryId: string, attempt = 1): OutcomeToRecord => ({
    deliveryId,
    attempt,
    outcome: { kind: 'failed', code: 'validation', message: 'too long' },
  });

  const counts = async (jobId: string) => {
    const [row] = await sql.$queryRawUnsafe<{ finished: number; published: number }[]>(
      'SELECT finished_deliveries AS finished, published_deliveries AS published FROM jobs WHERE id = $1::uuid',
      jobId,
    );
    return row;
  };
  const delivery = async (id: string) => {
    const [row] = await sql.$queryRawUnsafe<
      {
        status: string;
        attempts: number;
        platform_post_id: string | null;
        platform_post_url: string | null;
        error_code: string | null;
        finished_at: Date | null;
        lease_until: Date | null;
        org_wait_since: Date | null;
      }[]
    >(
      'SELECT status, attempts, platform_post_id, platform_post_url, error_code, finished_at, lease_until, org_wait_since FROM deliveries WHERE id = $1::uuid',
      id,
    );
    return row;
  };
  const jobStatus = async (id: string) =>
    (await sql.$queryRawUnsafe<{ status: string }[]>('SELECT status FROM jobs WHERE id = $1::uuid', id))[0]?.status;
  const pending = (targets: number, orgId: string) => job(targets, { orgId, status: 'pending', jobStatus: 'queued' });
  const claimed = (result: unknown) => typeof result === 'object' && result !== null;

  it("claims a group: each organization's free slots go to its deliveries in arrival order, the rest wait for a slot", async () => {
    const live = await job(2, { orgId: 'org_claim_a' }); // two leases of org A live already
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET lease_until = now() + interval '1 minute' WHERE job_id = $1::uuid",
      live.jobId,
    );
    const a = await pending(3, 'org_claim_a');
    const b = await pending(2, 'org_claim_b');
    const results = await claimDeliveries(
      sql,
      [
        { id: a.ids[2]!, orgId: 'org_claim_a' },
        { id: b.ids[0]!, orgId: 'org_claim_b' },
        { id: a.ids[0]!, orgId: 'org_claim_a' },
        { id: b.ids[1]!, orgId: 'org_claim_b' },
        { id: a.ids[1]!, orgId: 'org_claim_a' },
      ],
      60_000,
      3,
    );
    expect(results[0]).toEqual({
      post: null,
      firstCommentStatus: null,
      threadParts: [],
      attempt: 1,
      reconcileSince: null,
      reconcileTries: 0,
      handle: null,
      previousHandle: null,
      quotaDeferrals: 0,
    });
    expect(results.slice(1)).toEqual([
      expect.objectContaining({ attempt: 1 }),
      'org_busy',
      expect.objectContaining({ attempt: 1 }),
      'org_busy',
    ]);
    expect(await delivery(a.ids[2]!)).toMatchObject({ status: 'in_flight', attempts: 1, org_wait_since: null });
    expect((await delivery(a.ids[2]!))!.lease_until).not.toBeNull();
    expect(await delivery(a.ids[0]!)).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await delivery(a.ids[0]!))!.org_wait_since).not.toBeNull();
    expect(await jobStatus(a.jobId)).toBe('processing');
    expect(await jobStatus(b.jobId)).toBe('processing');
  });

  it('claims nothing of a delivery in flight, not due or finished, a delivery named twice once, and without a limit every claimable one', async () => {
    const { jobId, ids } = await pending(5, 'org_claim_c');
    await sql.$executeRawUnsafe("UPDATE deliveries SET status = 'in_flight', attempts = 1 WHERE id = $1::uuid", ids[0]);
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET next_attempt_at = now() + interval '1 minute' WHERE id = $1::uuid",
      ids[1],
    );
    await sql.$executeRawUnsafe("UPDATE deliveries SET status = 'published' WHERE id = $1::uuid", ids[2]);
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET reconcile_since = now(), attempts = 2, attempt_handle = 'h2' WHERE id = $1::uuid",
      ids[4],
    );
    // A post recorded before its first comment: the claim says so, so the post is never made again.
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET platform_post_id = 'p3', platform_post_url = 'https://x.test/p3' WHERE id = $1::uuid",
      ids[3],
    );
    const items = [ids[0]!, ids[1]!, ids[2]!, ids[3]!, ids[3]!, ids[4]!].map((id) => ({ id, orgId: 'org_claim_c' }));
    const results = await claimDeliveries(sql, items, 60_000, undefined);
    expect(results.map(claimed)).toEqual([false, false, false, true, false, true]);
    expect(results[3]).toMatchObject({
      post: { platformPostId: 'p3', url: 'https://x.test/p3' },
      firstCommentStatus: null,
    });
    // A claim to look the uncertain attempt up keeps its number and handle.
    expect(results[5]).toMatchObject({ attempt: 2, handle: 'h2', previousHandle: null });
    expect(await delivery(ids[3]!)).toMatchObject({ status: 'in_flight', attempts: 1 });
    expect(await jobStatus(jobId)).toBe('processing');
  });

  it('statements of one organization racing on separate connections never claim more than its limit', async () => {
    const { ids } = await pending(40, 'org_claim_race');
    const groups = Array.from({ length: 8 }, (_, g) =>
      ids.slice(g * 5, g * 5 + 5).map((id) => ({ id, orgId: 'org_claim_race' })),
    );
    // Eight open connections first, so the eight statements really run at once.
    await Promise.all(groups.map(() => sql.$queryRawUnsafe('SELECT pg_sleep(0.05)')));
    const results = (await Promise.all(groups.map((items) => claimDeliveries(sql, items, 60_000, 7)))).flat();
    expect(results.filter(claimed)).toHaveLength(7);
    expect(results.filter((r) => r === 'org_busy')).toHaveLength(33);
    const [row] = await sql.$queryRawUnsafe<{ in_flight: number; waiting: number }[]>(
      "SELECT count(*) FILTER (WHERE status = 'in_flight')::int AS in_flight, count(*) FILTER (WHERE org_wait_since IS NOT NULL)::int AS waiting FROM deliveries WHERE org_id = 'org_claim_race'",
    );
    expect(row).toEqual({ in_flight: 7, waiting: 33 });
  });

  it('reads many deliveries with their jobs in one statement, one result per id in order, none for an unknown id', async () => {
    const { jobId, ids } = await job(3);
    const unknown = randomUUID();
    const reads = await readDeliveriesToRun(sql, [ids[2]!, unknown, 'not-a-uuid', ids[0]!.toUpperCase()]);
    expect(reads[0]).toMatchObject({
      delivery: { id: ids[2], jobId, status: 'in_flight', unfinishedTargets: 3 },
      job: { text: 'hello', status: 'processing' },
    });
    expect(reads[1]).toBeUndefined();
    expect(reads[2]).toBeUndefined();
    expect(reads[3]).toMatchObject({ delivery: { id: ids[0] } });
  });

  it('records the outcomes of deliveries of several jobs, each with its own values, and counts them on their jobs', async () => {
    const a = await job(5);
    const b = await job(4);
    const results = await recordOutcomesUnlessLast(sql, [
      published(a.ids[0]!),
      failed(b.ids[1]!),
      published(b.ids[0]!),
      failed(a.ids[1]!),
      published(a.ids[2]!),
    ]);
    expect(results.every((r) => r.recorded)).toBe(true);
    expect(await counts(a.jobId)).toEqual({ finished: 3, published: 2 });
    expect(await counts(b.jobId)).toEqual({ finished: 2, published: 1 });
    expect(await delivery(a.ids[0]!)).toMatchObject({
      status: 'published',
      platform_post_id: `post_${a.ids[0]}`,
      platform_post_url: `https://x.test/${a.ids[0]}`,
      error_code: null,
      lease_until: null,
    });
    expect(await delivery(b.ids[1]!)).toMatchObject({
      status: 'failed',
      platform_post_id: null,
      error_code: 'validation',
      lease_until: null,
    });
    expect((await delivery(b.ids[1]!))!.finished_at).not.toBeNull();
  });

  it("writes a job's deliveries here only while they keep it short of its targets: its last is left to the statement that closes jobs", async () => {
    const closing = await job(4);
    const open = await job(3);
    await recordOutcomesUnlessLast(sql, [published(closing.ids[0]!)]);
    const results = await recordOutcomesUnlessLast(sql, [
      failed(closing.ids[3]!),
      published(closing.ids[1]!),
      published(open.ids[0]!),
      failed(closing.ids[2]!),
    ]);
    expect(results.map((r) => r.recorded)).toEqual([true, true, true, false]);
    expect(await counts(closing.jobId)).toEqual({ finished: 3, published: 2 });
    expect((await delivery(closing.ids[3]!))!.status).toBe('failed');
    expect((await delivery(closing.ids[2]!))!.status).toBe('in_flight');
    expect(await counts(open.jobId)).toEqual({ finished: 1, published: 1 });
    // The job's last target alone: nothing written.
    expect(await recordOutcomesUnlessLast(sql, [published(closing.ids[2]!)])).toEqual([{ recorded: false }]);
    expect(await counts(closing.jobId)).toEqual({ finished: 3, published: 2 });
  });

  it('writes an outcome only for the attempt that owns the delivery, never a failure over a post, and a delivery named twice once', async () => {
    const { jobId, ids } = await job(6);
    await sql.$executeRawUnsafe('UPDATE deliveries SET attempts = 2 WHERE id = $1::uuid', ids[0]);
    await sql.$executeRawUnsafe("UPDATE deliveries SET status = 'pending' WHERE id = $1::uuid", ids[1]);
    await sql.$executeRawUnsafe("UPDATE deliveries SET status = 'pending' WHERE id = $1::uuid", ids[2]);
    await sql.$executeRawUnsafe("UPDATE deliveries SET platform_post_id = 'found' WHERE id = $1::uuid", ids[3]);
    const results = await recordOutcomesUnlessLast(sql, [
      published(ids[0]!), // attempt 1 no longer owns it
      failed(ids[1]!), // a pending delivery whose account was lost fails unclaimed
      published(ids[2]!), // a post is recorded only by the attempt in flight
      failed(ids[3]!), // never a failure over a post the network gave
      published(ids[4]!),
      failed(ids[4]!), // the same delivery again: its first item is written
    ]);
    expect(results.map((r) => r.recorded)).toEqual([false, true, false, false, true, false]);
    expect(await counts(jobId)).toEqual({ finished: 2, published: 1 });
    expect((await delivery(ids[0]!))!.status).toBe('in_flight');
    expect((await delivery(ids[1]!))!.status).toBe('failed');
    expect((await delivery(ids[2]!))!.status).toBe('pending');
    expect(await delivery(ids[3]!)).toMatchObject({ status: 'in_flight', platform_post_id: 'found' });
    expect(await delivery(ids[4]!)).toMatchObject({ status: 'published', platform_post_id: `post_${ids[4]}` });
  });

  it("appends a thread's part only for the attempt in flight and after the part before it; the claim returns the parts", async () => {
    const { ids } = await job(2);
    expect(await recordThreadPart(sql, ids[0]!, 1, 0, { id: 'p0', url: 'u0' })).toBe(true);
    // Not the next part (index 0 is recorded), not this attempt, not in flight: nothing is written.
    expect(await recordThreadPart(sql, ids[0]!, 1, 0, { id: 'again', url: null })).toBe(false);
    expect(await recordThreadPart(sql, ids[0]!, 2, 1, { id: 'p1', url: null })).toBe(false);
    expect(await recordThreadPart(sql, ids[1]!, 1, 1, { id: 'p1', url: null })).toBe(false);
    expect(await recordThreadPart(sql, ids[0]!, 1, 1, { id: 'p1', url: null })).toBe(true);
    await sql.$executeRawUnsafe("UPDATE deliveries SET status = 'pending' WHERE id = $1::uuid", ids[0]);
    expect(await recordThreadPart(sql, ids[0]!, 1, 2, { id: 'p2', url: null })).toBe(false);
    const [claim] = await claimDeliveries(sql, [{ id: ids[0]!, orgId: 'org_1' }], 60_000, undefined);
    expect(claim).toMatchObject({
      threadParts: [
        { id: 'p0', url: 'u0' },
        { id: 'p1', url: null },
      ],
    });
  });

  it('finishes a pending delivery whose post was recorded before its first comment, with that post only', async () => {
    const { jobId, ids } = await job(4, { status: 'pending' });
    await sql.$executeRawUnsafe(
      'UPDATE deliveries SET attempts = 1, platform_post_id = $2 WHERE id = ANY($1::uuid[])',
      [ids[0], ids[1], ids[2]],
      'recorded',
    );
    const results = await recordOutcomesUnlessLast(sql, [
      { deliveryId: ids[0]!, attempt: 1, outcome: { kind: 'published', platformPostId: 'recorded', url: null } },
      { deliveryId: ids[1]!, attempt: 1, outcome: { kind: 'published', platformPostId: 'another', url: null } },
      failed(ids[2]!),
    ]);
    expect(results.map((r) => r.recorded)).toEqual([true, false, false]);
    expect(await delivery(ids[0]!)).toMatchObject({ status: 'published', platform_post_id: 'recorded' });
    expect(await delivery(ids[1]!)).toMatchObject({ status: 'pending', platform_post_id: 'recorded' });
    expect(await counts(jobId)).toEqual({ finished: 1, published: 1 });
  });

  it('retries an outcome_unknown target as a lookup from its lost attempt’s start, not from the retry, keeping its handle', async () => {
    const { jobId, ids } = await job(1, { status: 'failed', jobStatus: 'failed' });
    const started = new Date(Date.now() - 3_600_000);
    await sql.$executeRawUnsafe(
      `UPDATE deliveries SET error_code = 'outcome_unknown', attempts = 1, attempt_started_at = $2, attempt_handle = 'h_1'
        WHERE id = $1::uuid`,
      ids[0],
      started,
    );
    expect(await resetFailedTargets(sql, 'org_1', jobId)).toEqual(ids);
    const [row] = await sql.$queryRawUnsafe<
      { status: string; reconcile_since: Date | null; attempt_handle: string | null; prior_attempts: number }[]
    >('SELECT status, reconcile_since, attempt_handle, prior_attempts FROM deliveries WHERE id = $1::uuid', ids[0]);
    // An hour later, the post the lost attempt made is still found by a lookup from its start.
    expect(row).toEqual({ status: 'pending', reconcile_since: started, attempt_handle: 'h_1', prior_attempts: 1 });
  });

  it('says, for each delivery written, whether deliveries of its organization wait for a slot and are not woken already', async () => {
    const busy = await job(3, { orgId: 'org_busy' });
    const idle = await job(3, { orgId: 'org_idle' });
    const woken = await job(3, { orgId: 'org_woken' });
    const waiter = await job(2, { orgId: 'org_busy', status: 'pending' });
    const wokenWaiter = await job(2, { orgId: 'org_woken', status: 'pending' });
    await sql.$executeRawUnsafe('UPDATE deliveries SET org_wait_since = now() WHERE id = $1::uuid', waiter.ids[0]);
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET org_wait_since = now(), org_woken_until = now() + interval '1 minute' WHERE id = $1::uuid",
      wokenWaiter.ids[0],
    );
    const results = await recordOutcomesUnlessLast(sql, [
      published(busy.ids[0]!),
      published(idle.ids[0]!),
      published(woken.ids[0]!),
    ]);
    expect(results).toEqual([
      { recorded: true, othersWaiting: true },
      { recorded: true, othersWaiting: false },
      { recorded: true, othersWaiting: false },
    ]);
  });

  it('closes jobs in the statement that writes their last outcomes: final status by what was published, counts, and only the jobs closed named', async () => {
    const single = await job(1);
    const lost = await job(1);
    const mixed = await job(3);
    const pair = await job(2);
    const open = await job(3);
    await recordOutcomesUnlessLast(sql, [published(mixed.ids[0]!), failed(mixed.ids[1]!)]);
    const { results, closedJobIds } = await sql.$transaction((tx) =>
      recordOutcomesClosingJobs(tx, [
        published(single.ids[0]!),
        failed(lost.ids[0]!),
        failed(mixed.ids[2]!),
        published(pair.ids[1]!),
        failed(pair.ids[0]!), // both targets of one job together: counted twice, closed once
        published(open.ids[0]!), // not its job's last after all: written and counted, the job stays open
      ]),
    );
    expect(results.every((r) => r.recorded)).toBe(true);
    expect(new Set(closedJobIds)).toEqual(new Set([single.jobId, lost.jobId, mixed.jobId, pair.jobId]));
    expect(closedJobIds).toHaveLength(4);
    expect(await jobStatus(single.jobId)).toBe('published');
    expect(await jobStatus(lost.jobId)).toBe('failed');
    expect(await jobStatus(mixed.jobId)).toBe('partial');
    expect(await jobStatus(pair.jobId)).toBe('partial');
    expect(await jobStatus(open.jobId)).toBe('processing');
    expect(await counts(mixed.jobId)).toEqual({ finished: 3, published: 1 });
    expect(await counts(pair.jobId)).toEqual({ finished: 2, published: 1 });
    expect(await counts(open.jobId)).toEqual({ finished: 1, published: 1 });
    expect(await delivery(single.ids[0]!)).toMatchObject({
      status: 'published',
      platform_post_id: `post_${single.ids[0]}`,
      lease_until: null,
    });
    expect(await delivery(lost.ids[0]!)).toMatchObject({ status: 'failed', error_code: 'validation' });
    const [finished] = await sql.$queryRawUnsafe<{ closed: number; open: number }[]>(
      'SELECT count(*) FILTER (WHERE finished_at IS NOT NULL)::int AS closed, count(*) FILTER (WHERE finished_at IS NULL)::int AS open FROM jobs WHERE id = ANY($1::uuid[])',
      [single.jobId, lost.jobId, mixed.jobId, pair.jobId, open.jobId],
    );
    expect(finished).toEqual({ closed: 4, open: 1 });
  });

  it('closes nothing for an outcome its attempt no longer owns, and counts without closing a job that left queued and processing', async () => {
    const taken = await job(1);
    await sql.$executeRawUnsafe('UPDATE deliveries SET attempts = 2 WHERE id = $1::uuid', taken.ids[0]);
    const canceled = await job(1, { jobStatus: 'canceled' });
    const { results, closedJobIds } = await sql.$transaction((tx) =>
      recordOutcomesClosingJobs(tx, [published(taken.ids[0]!), published(canceled.ids[0]!), failed(canceled.ids[0]!)]),
    );
    expect(results.map((r) => r.recorded)).toEqual([false, true, false]);
    expect(closedJobIds).toEqual([]);
    expect(await jobStatus(taken.jobId)).toBe('processing');
    expect(await counts(taken.jobId)).toEqual({ finished: 0, published: 0 });
    expect(await jobStatus(canceled.jobId)).toBe('canceled');
    expect(await counts(canceled.jobId)).toEqual({ finished: 1, published: 1 });
  });

  it('announces each job it closes once, in the same transaction: post.published or post.failed with every result', async () => {
    const orgId = 'org_announce';
    const good = await job(1, { orgId });
    const bad = await job(2, { orgId });
    const waiter = await job(1, { orgId, status: 'pending' });
    await sql.$executeRawUnsafe('UPDATE deliveries SET org_wait_since = now() WHERE id = $1::uuid', waiter.ids[0]);
    const results = await recordClosingOutcomes(sql, [
      published(good.ids[0]!),
      failed(bad.ids[0]!),
      failed(bad.ids[1]!),
      published(good.ids[0]!),
    ]);
    expect(results).toEqual([
      { recorded: true, othersWaiting: true },
      { recorded: true, othersWaiting: true },
      { recorded: true, othersWaiting: true },
      { recorded: false },
    ]);
    const events = await sql.$queryRawUnsafe<
      {
        type: string;
        envelope: {
          org_id: string;
          payload: {
            id: string;
            status: string;
            results: {
              account_id: string;
              status: string;
              platform_post_id: string | null;
              error_code: string | null;
            }[];
          };
        };
      }[]
    >("SELECT type, envelope FROM outbox_messages WHERE envelope->'payload'->>'id' = ANY($1::text[]) ORDER BY type", [
      good.jobId,
      bad.jobId,
    ]);
    expect(events.map((e) => [e.type, e.envelope.payload.id, e.envelope.payload.status])).toEqual([
      ['post.failed.v1', bad.jobId, 'failed'],
      ['post.published.v1', good.jobId, 'published'],
    ]);
    expect(events[0]!.envelope.org_id).toBe(orgId);
    expect(events[0]!.envelope.payload.results).toEqual([
      expect.objectContaining({ account_id: 'acct_0', status: 'failed', error_code: 'validation' }),
      expect.objectContaining({ account_id: 'acct_1', status: 'failed', error_code: 'validation' }),
    ]);
    expect(events[1]!.envelope.payload.results).toEqual([
      expect.objectContaining({ account_id: 'acct_0', status: 'published', platform_post_id: `post_${good.ids[0]}` }),
    ]);
    // Again (a retry of the same outcomes): nothing owned, nothing announced twice.
    expect(await recordClosingOutcomes(sql, [published(good.ids[0]!), failed(bad.ids[1]!)])).toEqual([
      { recorded: false },
      { recorded: false },
    ]);
    const [again] = await sql.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM outbox_messages WHERE envelope->'payload'->>'id' = ANY($1::text[])",
      [good.jobId, bad.jobId],
    );
    expect(again!.n).toBe(2);
  });

  it('closing statements and grouped ones racing over the same jobs in opposite orders close each job once, without a deadlock', async () => {
    for (let round = 0; round < 4; round += 1) {
      const jobs = await Promise.all(Array.from({ length: 4 }, () => job(20)));
      // Every target of each job, in 8 statements of 10 (5 of them per job): even ones close jobs,
      // odd ones leave each job's last; half list the jobs backwards; all sent at once.
      const statements = Array.from({ length: 8 }, (_, s) => {
        const items = jobs.flatMap(({ ids }) =>
          ids
            .slice((s * 5) % 20, ((s * 5) % 20) + 5)
            .filter((_, i) => i % 2 === s % 2 || s >= 4)
            .map((id, i) => (i % 2 === 0 ? published(id) : failed(id))),
        );
        return s % 2 === 0 ? items : items.reverse();
      });
      await Promise.all(statements.map(() => sql.$queryRawUnsafe('SELECT pg_sleep(0.02)')));
      await Promise.all(
        statements.map((items, s) =>
          s % 2 === 0 ? recordClosingOutcomes(sql, items) : recordOutcomesUnlessLast(sql, items),
        ),
      );
      // Whatever the interleaving, every target that is left gets its outcome from a closing statement.
      const left = await sql.$queryRawUnsafe<{ id: string }[]>(
        "SELECT id::text AS id FROM deliveries WHERE job_id = ANY($1::uuid[]) AND status = 'in_flight'",
        jobs.map((j) => j.jobId),
      );
      await recordClosingOutcomes(
        sql,
        left.map((row) => published(row.id)),
      );
      for (const { jobId } of jobs) {
        const [row] = await sql.$queryRawUnsafe<{ finished: number; published: number }[]>(
          "SELECT count(*) FILTER (WHERE status IN ('published', 'failed'))::int AS finished, count(*) FILTER (WHERE status = 'published')::int AS published FROM deliveries WHERE job_id = $1::uuid",
          jobId,
        );
        expect(row!.finished).toBe(20);
        expect(await counts(jobId)).toEqual({ finished: 20, published: row!.published });
        expect(await jobStatus(jobId)).toBe('partial');
        const [events] = await sql.$queryRawUnsafe<{ n: number }[]>(
          "SELECT count(*)::int AS n FROM outbox_messages WHERE envelope->'payload'->>'id' = $1",
          jobId,
        );
        expect(events!.n).toBe(1);
      }
    }
  });

  it("statements racing over the same jobs in opposite orders count every delivery once and leave each job's last, without a deadlock", async () => {
    // Rounds, because a lock-order deadlock needs an unlucky interleaving (without the ordered locks
    // about one round in three failed with "deadlock detected").
    for (let round = 0; round < 4; round += 1) {
      const jobs = await Promise.all(Array.from({ length: 4 }, () => job(40)));
      // Every target of each job, in 8 statements of 20: each names 5 deliveries of every job, half
      // of them listing the jobs backwards, all sent at once on separate connections.
      const statements = Array.from({ length: 8 }, (_, s) => {
        const items = jobs.flatMap(({ ids }) =>
          ids.slice(s * 5, s * 5 + 5).map((id, i) => (i % 2 === 0 ? published(id) : failed(id))),
        );
        return s % 2 === 0 ? items : items.reverse();
      });
      await Promise.all(statements.map(() => sql.$queryRawUnsafe('SELECT pg_sleep(0.02)')));
      const results = await Promise.all(statements.map((items) => recordOutcomesUnlessLast(sql, items)));
      expect(results.flat().filter((r) => !r.recorded)).toHaveLength(4);
      for (const { jobId, ids } of jobs) {
        const [row] = await sql.$queryRawUnsafe<{ finished: number; published: number; in_flight: number }[]>(
          `SELECT count(*) FILTER (WHERE status IN ('published', 'failed'))::int AS finished, count(*) FILTER (WHERE status = 'published')::int AS published,
                  count(*) FILTER (WHERE status = 'in_flight')::int AS in_flight FROM deliveries WHERE id = ANY($1::uuid[])`,
          ids,
        );
        expect(row).toMatchObject({ finished: 39, in_flight: 1 });
        expect(await counts(jobId)).toEqual({ finished: 39, published: row!.published });
      }
    }
  });

  it("counts a job's finished deliveries in place: a page full of new jobs keeps room for their counts (fillfactor), so no count moves its row", async () => {
    // Enough jobs for several pages, each with deliveries left after this outcome (no job finishes).
    const made = await Promise.all(Array.from({ length: 300 }, () => job(3, { orgId: 'org_pages' })));
    const places = async () =>
      await sql.$queryRawUnsafe<{ id: string; page: number; line: number }[]>(
        'SELECT id::text AS id, (ctid::text::point)[0]::int AS page, (ctid::text::point)[1]::int AS line FROM jobs WHERE id = ANY($1::uuid[])',
        made.map((m) => m.jobId),
      );
    const before = await places();
    // A third of each page's jobs, so the room itself must hold their new versions: whether
    // PostgreSQL prunes the old ones between statements depends on every open transaction in the
    // cluster (its cached horizon), which a test sharing the server does not control. At a fill
    // factor of 100 the first count on each full page moves its row.
    const counted = before.filter((row) => row.line % 3 === 1);
    const deliveryOf = new Map(made.map((m) => [m.jobId, m.ids[0]!]));
    for (const row of counted)
      expect(await recordOutcomesUnlessLast(sql, [published(deliveryOf.get(row.id)!)])).toEqual([
        { recorded: true, othersWaiting: false },
      ]);
    // A row that stays on its page was updated heap-only: no new entry in any of the jobs' indexes.
    const pageNow = new Map((await places()).map((row) => [row.id, row.page]));
    expect(counted.filter((row) => pageNow.get(row.id) !== row.page)).toEqual([]);
    expect(new Set(counted.map((row) => row.page)).size).toBeGreaterThan(1);
  });

  it("counts the woken through their own index whatever the statistics say, never the organization's pending rows", async () => {
    const orgId = 'org_wake_plan';
    const inFlight = await job(5, { orgId });
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET lease_until = now() + interval '1 minute' WHERE id = ANY($1::uuid[])",
      inFlight.ids,
    );
    const line = await pending(400, orgId);
    await sql.$executeRawUnsafe(
      'UPDATE deliveries SET org_wait_since = clock_timestamp() WHERE id = ANY($1::uuid[])',
      line.ids,
    );
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET org_woken_until = now() + interval '1 minute' WHERE id = ANY($1::uuid[])",
      line.ids.slice(0, 2),
    );
    // Statistics taken while many rows carried a mark say a mark is common; the marks are gone by
    // the time the wake is planned. Counted plainly, the count then read every pending row of the
    // organization (deliveries_pending_idx) or intersected them with the marks (a bitmap AND).
    const history = await Promise.all(
      Array.from({ length: 40 }, () => job(50, { orgId, status: 'published', jobStatus: 'published' })),
    );
    const finished = history.flatMap((made) => made.ids);
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET org_woken_until = now() + interval '1 hour' WHERE id = ANY($1::uuid[])",
      finished,
    );
    await sql.$executeRawUnsafe('ANALYZE deliveries');
    await sql.$executeRawUnsafe('UPDATE deliveries SET org_woken_until = NULL WHERE id = ANY($1::uuid[])', finished);

    // The wake's own statement, planned as the publisher's delivery connections plan it (generic:
    // DELIVERY_SESSION_SETTINGS), then with its values (as a connection without those settings does).
    const planner = createPgRawSql(database.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: DELIVERY_SESSION_SETTINGS,
    });
    const plans: string[] = [];
    const explaining = planningSql(planner, (plan) => plans.push(JSON.stringify(plan)));
    try {
      await wakeWaitingDeliveries(explaining, orgId, 8, 1, 60_000);
      await planner.$executeRawUnsafe('SET plan_cache_mode = force_custom_plan');
      await wakeWaitingDeliveries(explaining, orgId, 8, 1, 60_000);
    } finally {
      await planner.end();
    }
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      const readThrough = [...plan.matchAll(/"Index Name":"([^"]+)"|"Node Type":"(BitmapAnd)"/g)].map(
        (match) => match[1] ?? match[2],
      );
      expect(readThrough).toContain('deliveries_org_woken_idx');
      expect(readThrough).not.toEqual(expect.arrayContaining(['deliveries_pending_idx']));
      expect(readThrough).not.toEqual(expect.arrayContaining(['deliveries_org_id_status_idx']));
      expect(readThrough).not.toEqual(expect.arrayContaining(['BitmapAnd']));
    }

    // And the count is right: 5 in flight and 2 woken leave 1 slot of 8, none of 7.
    expect(await wakeWaitingDeliveries(sql, orgId, 7, 3, 60_000)).toEqual([]);
    const woken = await wakeWaitingDeliveries(sql, orgId, 8, 3, 60_000);
    expect(woken).toHaveLength(1);
    expect(line.ids.slice(2)).toContain(woken[0]!.id);
  });

  it('reads deliveries and jobs by primary key in every plan of the grouped read, claim and outcome, even a plan made on empty tables', async () => {
    // Its own database: the plans in question are the ones a delivery connection makes (generic, kept
    // for its life) while the tables are empty or nearly, as at a deployment's start or before a burst.
    const fresh = await createTestDatabase({
      prefix: 'publisher-delivery-plans',
      serviceDir: path.resolve(__dirname, '..'),
    });
    const writer = createPgRawSql(fresh.connection, { max: 1, onIdleError: () => undefined });
    const planner = createPgRawSql(fresh.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: DELIVERY_SESSION_SETTINGS,
    });
    const plans = new Map<string, string[]>();
    /** Runs nothing: plans each statement on the delivery session (generic, as it plans them) and keeps how it reads deliveries and jobs. */
    const explaining = (name: string) =>
      planningSql(planner, (plan) => plans.set(name, tableReads(plan, ['deliveries', 'jobs'])));
    const planAll = async () => {
      plans.clear();
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await readDeliveriesToRun(explaining('read'), ids);
      await claimDeliveries(
        explaining('claim'),
        ids.map((id) => ({ id, orgId: 'org_plan' })),
        60_000,
        10,
      );
      await recordOutcomesUnlessLast(
        explaining('outcome'),
        ids.map((id) => published(id)),
      );
      await recordOutcomesClosingJobs(
        explaining('closing'),
        ids.map((id) => published(id)),
      );
      return Object.fromEntries(plans);
    };
    // By primary key only: a scan of the table, or of an index of all its pending rows or of an
    // organization's jobs, reads the whole backlog on every call once the tables fill.
    const byPrimaryKey = {
      read: ['deliveries deliveries_pkey', 'jobs jobs_pkey'],
      claim: ['deliveries deliveries_pkey', 'jobs jobs_pkey'],
      // The probe for deliveries waiting for a slot reads their own small index (data/org-waiting.ts).
      outcome: ['deliveries deliveries_org_waiting_idx', 'deliveries deliveries_pkey', 'jobs jobs_pkey'],
      closing: ['deliveries deliveries_org_waiting_idx', 'deliveries deliveries_pkey', 'jobs jobs_pkey'],
    };
    try {
      expect(await planAll()).toEqual(byPrimaryKey); // planned on empty tables, never analyzed

      await insertPendingBacklog(writer, 'org_plan');
      expect(await planAll()).toEqual(byPrimaryKey);
    } finally {
      await planner.end();
      await writer.end();
      await fresh.drop();
    }
  }, 60_000);

  it("counts an organization's live leases through their own index, whether planned on an empty table or after statistics", async () => {
    // Its own database: the plan made while deliveries is empty is the one in question.
    const fresh = await createTestDatabase({
      prefix: 'publisher-leases-plan',
      serviceDir: path.resolve(__dirname, '..'),
    });
    const writer = createPgRawSql(fresh.connection, { max: 1, onIdleError: () => undefined });
    // One session with the publisher's delivery settings, which the function's cached plan belongs
    // to; auto_explain hands the plan of the function's own query back as a notice.
    const { host, port, user, password, database: name } = fresh.connection;
    const session = new pg.Client({
      host,
      port,
      user,
      database: name,
      ...(password === undefined ? {} : { password }),
      options: Object.entries(DELIVERY_SESSION_SETTINGS)
        .map(([setting, value]) => `-c ${setting}=${value}`)
        .join(' '),
    });
    const plans: unknown[] = [];
    session.on('notice', (notice) => {
      const json = notice.message?.slice(notice.message.indexOf('\n') + 1) ?? '';
      if (json.includes('FROM deliveries WHERE org_id = org')) plans.push((JSON.parse(json) as { Plan: unknown }).Plan);
    });
    /** The plan nodes that read deliveries, of the count just run. */
    const scans = (plan: unknown): Record<string, unknown>[] => {
      const node = plan as Record<string, unknown> & { Plans?: unknown[] };
      return [...(node['Relation Name'] === 'deliveries' ? [node] : []), ...(node.Plans ?? []).flatMap(scans)];
    };
    const leases = async () => {
      plans.length = 0;
      const { rows } = await session.query<{ n: number }>("SELECT delivery_org_leases('org_p') AS n");
      expect(plans).toHaveLength(1);
      return { count: rows[0]!.n, read: scans(plans[0]) };
    };
    const readOnlyTheLive = [expect.objectContaining({ 'Index Name': 'deliveries_org_leases_idx', 'Actual Rows': 5 })];
    try {
      await session.connect();
      for (const statement of [
        "LOAD 'auto_explain'",
        'SET auto_explain.log_min_duration = 0',
        'SET auto_explain.log_nested_statements = on',
        'SET auto_explain.log_analyze = on',
        "SET auto_explain.log_format = 'json'",
        "SET auto_explain.log_level = 'notice'",
      ])
        await session.query(statement);
      expect((await leases()).count).toBe(0); // planned now, on an empty table, and kept for the session

      // 5 live leases, 1 run out, 600 finished deliveries of the organization, 30 leases of another.
      const jobId = randomUUID();
      await writer.$executeRawUnsafe(
        "INSERT INTO jobs (id, org_id, status, text, updated_at) VALUES ($1::uuid, 'org_p', 'processing', 'hello', now())",
        jobId,
      );
      await writer.$executeRawUnsafe(
        `INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, lease_until, finished_at, updated_at)
         SELECT gen_random_uuid(), $1::uuid, CASE WHEN n > 606 THEN 'org_other' ELSE 'org_p' END, 'acct_' || n, 'x', n,
                CASE WHEN n <= 6 OR n > 606 THEN 'in_flight' ELSE 'published' END,
                CASE WHEN n = 6 THEN now() - interval '1 minute' WHEN n <= 6 OR n > 606 THEN now() + interval '1 minute' END,
                CASE WHEN n > 6 AND n <= 606 THEN now() END, now()
           FROM generate_series(1, 636) AS n`,
        jobId,
      );
      const planned = await leases();
      expect(planned.count).toBe(5);
      // Read through no other index, and nothing read that the count does not need (a filter).
      expect(planned.read).toEqual(readOnlyTheLive);
      expect(planned.read[0]).not.toHaveProperty('Filter');

      await writer.$executeRawUnsafe('ANALYZE deliveries');
      const analyzed = await leases();
      expect(analyzed.count).toBe(5);
      expect(analyzed.read).toEqual(readOnlyTheLive);
      expect(analyzed.read[0]).not.toHaveProperty('Filter');
    } finally {
      await session.end().catch(() => undefined);
      await writer.end();
      await fresh.drop();
    }
  }, 60_000);
});

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import pg from 'pg';
import { describeOpenJobs } from '../../bench/scenarios/soak-open-jobs.ts';
import type { ServiceProcess } from '../support/service-process.ts';

/** The report a soak's timed-out drain throws: the open jobs' rows in both databases and the services' unusual lines. */
describe('describeOpenJobs', () => {
  let publisherDb: TestDatabase;
  let schedulerDb: TestDatabase;
  let publisher: pg.Client;

  beforeAll(async () => {
    [publisherDb, schedulerDb] = await Promise.all([
      createTestDatabase({
        prefix: 'soak-open-publisher',
        serviceDir: path.resolve(__dirname, '../../services/publisher'),
      }),
      createTestDatabase({
        prefix: 'soak-open-scheduler',
        serviceDir: path.resolve(__dirname, '../../services/scheduler'),
      }),
    ]);
    publisher = new pg.Client(publisherDb.connection);
    await publisher.connect();
  });

  afterAll(async () => {
    await publisher?.end();
    await Promise.all([publisherDb?.drop(), schedulerDb?.drop()]);
  });

  it('lists each open job, its unfinished deliveries, its scheduler row and the lines that say why it waits', async () => {
    const [stuck, done] = [randomUUID(), randomUUID()];
    await publisher.query(
      `INSERT INTO jobs (id, org_id, status, text, account_ids, scheduled_at, updated_at)
       VALUES ($1, 'org_1', 'processing', 'a', '{acc_1,acc_2}', now(), now()), ($2, 'org_1', 'published', 'b', '{acc_1}', NULL, now())`,
      [stuck, done],
    );
    await publisher.query(
      `INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, attempts, error_code, next_attempt_at, finished_at, updated_at)
       VALUES ($1, $3, 'org_1', 'acc_1', 'x', 0, 'published', 1, NULL, NULL, now(), now()),
              ($2, $3, 'org_1', 'acc_2', 'x', 1, 'pending', 4, 'network_unavailable', now() + interval '10 minutes', NULL, now())`,
      [randomUUID(), randomUUID(), stuck],
    );
    const scheduler = new pg.Client(schedulerDb.connection);
    await scheduler.connect();
    await scheduler.query(
      `INSERT INTO scheduled_jobs (job_id, org_id, run_at, status) VALUES ($1, 'org_1', now(), 'fired')`,
      [stuck],
    );
    await scheduler.end();
    // As the services log them: levels by label.
    const lines = [
      JSON.stringify({ level: 'info', msg: 'publisher ready' }),
      JSON.stringify({ level: 'info', msg: 'delivery will be retried', delivery_id: 'd_1', delay_ms: 600000 }),
      JSON.stringify({ level: 'error', msg: 'provider call failed' }),
      JSON.stringify({ level: 'warn', msg: 'RabbitMQ blocked publishing' }),
      'not json',
    ];
    const system = {
      database: async (service: string) => {
        const client = new pg.Client(service === 'scheduler' ? schedulerDb.connection : publisherDb.connection);
        await client.connect();
        return client;
      },
      processes: new Map([['publisher', { lines } as ServiceProcess]]),
    };

    const report = await describeOpenJobs(system, publisher, [stuck]);

    expect(report).toMatch(/^1 open job\(s\)/);
    expect(report).toContain(`"id":"${stuck}","status":"processing"`);
    expect(report).not.toContain(done);
    // Only the delivery still open, with what it waits for.
    expect(report.match(/unfinished delivery/g)).toHaveLength(1);
    expect(report).toContain('"status":"pending","attempts":4,"error_code":"network_unavailable"');
    expect(report).toContain(`scheduler {"job_id":"${stuck}","status":"fired"`);
    expect(report).toContain('publisher: {"level":"info","msg":"delivery will be retried"');
    expect(report).toContain('publisher: {"level":"error","msg":"provider call failed"}');
    expect(report).toContain('publisher: {"level":"warn","msg":"RabbitMQ blocked publishing"}');
    expect(report).toContain('publisher: not json');
    expect(report).not.toContain('publisher ready');
  });
});

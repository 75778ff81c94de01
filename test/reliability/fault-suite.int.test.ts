import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import type { Network } from '@svc/providers';
import { serviceQueues, TEST_DATABASE_URL, uniqueName, uniqueNamespace } from '@svc/testing';
import { SignJWT } from 'jose';
import pg from 'pg';
import { startMediaServer, type MediaServer } from '../../libs/providers/test/support/media-server.ts';
import { startSandbox, testProviders, type RunningSandbox } from '../../libs/providers/test/support/sandbox.ts';
import {
  freePort,
  startServiceProcess,
  signalServiceProcess,
  type ServiceProcess,
} from '../support/service-process.ts';
import { harnessEnv, JWT_SECRET } from '../support/system-harness.ts';

const run = promisify(execFile);

/**
 * The fault suite (docs/reliability.md, "The fault suite"): the real processes (gateway, accounts,
 * publisher, scheduler) publish 200 jobs x 5 accounts, one per network, while the publisher is
 * killed twice with SIGKILL, the scheduler is restarted, every broker connection of the run is
 * closed, the publisher's database connections are dropped, and the networks lose or delay their
 * answers to creating calls. Then, from the sandbox's own records, every target was posted at most
 * once, every job is terminal, and every per-target result is true: published with the id the
 * network has, or failed with no post on the network, or outcome_unknown where the network could
 * not be asked.
 */
const NETWORKS: Network[] = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'];
// FAULT_SUITE_JOBS=300 runs the 1,500-target measurement (docs/reliability.md, "The fault suite").
const JOBS = Number(process.env.FAULT_SUITE_JOBS ?? 200);
const SCHEDULED = 20;
const namespace = uniqueNamespace('fault');
const runId = uniqueName('fault');
const databases = ['gateway', 'accounts', 'publisher', 'scheduler'].map((name) => `${runId}_${name}`);

interface Result {
  account_id: string;
  provider: Network;
  status: string;
  platform_post_id: string | null;
  error_code: string | null;
  error_message: string | null;
}
interface Post {
  id: string;
  status: string;
  text: string;
  results: Result[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fault suite: exactly once and truthful under crashes, restarts and lost answers', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let env: Record<string, string>;
  let api: string;
  let auth: string;
  const processes = new Map<string, ServiceProcess>();

  const start = async (name: string) => {
    processes.set(name, await startServiceProcess(name, { ...env, DATABASE_NAME: `${runId}_${name}` }));
  };
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${api}${route}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ igQuotaTotal: 100_000 });
    media = await startMediaServer();
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    env = harnessEnv(
      namespace,
      sandbox.baseUrl,
      { dir: path.join(os.tmpdir(), runId), publicBaseUrl: api },
      {
        // info: each process announces "<name> ready" at that level.
        LOG_LEVEL: 'info',
        PORT: String(port),
        RATE_LIMIT_PER_KEY: '100000',
        RATE_LIMIT_PER_ORG: '100000',
        RATE_LIMIT_PER_ADDRESS: '100000',
        SCHEDULE_MIN_LEAD_SECONDS: '0',
        PLAN_FREE_POSTS_PER_MONTH: '100000',
        DELIVERY_LEASE_MS: '3000',
        DELIVERY_SWEEP_INTERVAL_MS: '500',
        DELIVERY_RECONCILE_DELAYS_MS: '500,1000,2000,4000',
        DELIVERY_BACKOFF_MS: '300,600',
        SHUTDOWN_GRACE_MS: '3000',
        // The backstops for lost commands, with delays shortened to the suite's time scale.
        SCHEDULER_MAINTENANCE_MS: '1000',
        SCHEDULER_REDISPATCH_AFTER_MS: '5000',
        SCHEDULE_OVERDUE_DISPATCH_MS: '20000',
        DELIVERY_STALE_PENDING_MS: '20000',
      },
    );
    await start('gateway');
    await Promise.all(['accounts', 'publisher', 'scheduler'].map(start));
    auth = `Bearer ${await new SignJWT({ sub: 'user_1', org_id: `org_${runId}` }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('30m').sign(new TextEncoder().encode(JWT_SECRET))}`;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...processes.values()].map((service) => signalServiceProcess(service, 'SIGKILL')));
    // FAULT_SUITE_LOG_DIR keeps each process's log (the last publisher's) for a failure's post-mortem.
    const logDir = process.env.FAULT_SUITE_LOG_DIR;
    if (logDir)
      for (const service of processes.values())
        writeFileSync(path.join(logDir, `${service.name}.log`), service.lines.join('\n'));
    const broker = await Broker.connect({
      url: env.AMQP_URL!,
      namespace,
      service: 'fault-suite',
      logger: createLogger({ service: 'fault-suite', level: 'silent' }),
    });
    await broker.deleteTopology({
      queues: serviceQueues([
        'gateway',
        'accounts',
        'publisher',
        'scheduler',
        'webhook-dispatcher',
        'analytics-sync',
        'billing',
      ]),
    });
    await broker.close();
    await Promise.all(databases.map((database) => dropDatabase(connectionConfig(TEST_DATABASE_URL, database))));
    await sandbox?.close();
    await media?.close();
  }, 60_000);

  /** Closes every RabbitMQ connection of this run's processes (their names carry the namespace). */
  async function closeBrokerConnections(): Promise<number> {
    const { stdout } = await run('rabbitmqctl', ['-q', 'list_connections', 'pid', 'client_properties'], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const pids = stdout
      .split('\n')
      .filter((line) => line.includes(`${namespace}/`))
      .map((line) => line.split('\t')[0]!);
    for (const pid of pids)
      await run('rabbitmqctl', ['-q', 'close_connection', pid, 'fault suite']).catch(() => undefined);
    return pids.length;
  }

  async function dropPublisherDbConnections(): Promise<void> {
    const client = new pg.Client({ connectionString: `${TEST_DATABASE_URL}/postgres` });
    await client.connect();
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [`${runId}_publisher`],
    );
    await client.end();
  }

  async function restart(name: string, signal: NodeJS.Signals): Promise<void> {
    await signalServiceProcess(processes.get(name)!, signal);
    await start(name);
  }

  it('ends every job terminal, every target posted at most once, every result true', async () => {
    const accounts: string[] = [];
    for (const network of NETWORKS) {
      const token = `${runId}-${network}`;
      const profile = await testProviders(sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })[network].profile.fetch({
        accessToken: token,
      });
      const res = await call('POST', '/v1/accounts', {
        provider: network,
        platform_account_id: profile.platformAccountId,
        credentials: { access_token: token },
      });
      expect(res.status).toBe(201);
      accounts.push(res.body.id as string);
    }
    await sandbox.outcomeFault('x', 'lost_response', 3);
    await sandbox.outcomeFault('facebook', 'slow_response', 2, 5);
    await sandbox.outcomeFault('instagram', 'lost_response', 2);
    await sandbox.outcomeFault('linkedin', 'lost_response', 2);

    const jobs: string[] = [];
    const texts = new Map<string, string>();
    const submit = async (n: number, scheduledAt?: Date) => {
      const text = `fault suite ${runId} #${n}`;
      const body = {
        account_ids: accounts,
        text,
        media_urls: [media.url('/image.jpg')],
        provider_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
        ...(scheduledAt ? { scheduled_at: scheduledAt.toISOString() } : {}),
      };
      // An accept may meet the publisher mid-restart (a 5xx): retried with the same key, as a client
      // should. So is a 429 (a loaded machine leaves the organization's two media imports running
      // longer), after the wait it names. Another 4xx is an answer, never retried.
      for (let tries = 0; ; tries += 1) {
        const res = await fetch(`${api}/v1/publish`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': `${runId}-${n}` },
          body: JSON.stringify(body),
        });
        if (res.status === 202) {
          const id = ((await res.json()) as { job_id: string }).job_id;
          jobs.push(id);
          texts.set(id, text);
          return;
        }
        const answer = await res.text();
        if ((res.status < 500 && res.status !== 429) || tries >= 20)
          throw new Error(`job ${n} was not accepted: ${res.status} ${answer}`);
        // The client's back-off (the 429's Retry-After, else half a second): what a client does, not a guess at a duration.
        await sleep(res.status === 429 ? Number(res.headers.get('retry-after') ?? 1) * 1000 : 500);
      }
    };
    // The scheduled jobs are accepted before the chaos begins and fall due in the middle of it.
    const due = new Date(Date.now() + 12_000);
    await Promise.all(Array.from({ length: SCHEDULED }, (_, n) => submit(n, due)));

    // The sleeps space the restarts among the submissions on purpose: what they wait for is nothing
    // but time passing, and a slow machine only moves them to other jobs.
    const chaos = (async () => {
      await sleep(1500);
      await restart('publisher', 'SIGKILL');
      await sleep(1500);
      expect(await closeBrokerConnections()).toBeGreaterThan(0);
      await dropPublisherDbConnections();
      await restart('scheduler', 'SIGTERM');
      await sleep(1500);
      await restart('publisher', 'SIGKILL');
      return Date.now();
    })();

    let failedToSubmit: unknown;
    try {
      for (let i = SCHEDULED; i < JOBS; i += 8)
        await Promise.all(Array.from({ length: Math.min(8, JOBS - i) }, (_, k) => submit(i + k)));
    } catch (error) {
      failedToSubmit = error;
    }
    // The chaos always runs to its end, so nothing of it outlives the test.
    const lastRestart = await chaos;
    if (failedToSubmit !== undefined) throw failedToSubmit;

    const final = new Map<string, Post>();
    // A liveness bound, not the issue's 60 s figure: on a quiet machine 1,500 targets end 53 s after the
    // restart (docs/reliability.md); CI shares two cores with other suites, where 200 jobs took 75 to
    // 79 s at load 8 and longer at load 11+ with every job still moving.
    const deadline = lastRestart + 180_000;
    while (final.size < jobs.length) {
      const open: unknown[] = [];
      for (const id of jobs.filter((job) => !final.has(job))) {
        const res = await call('GET', `/v1/posts/${id}`);
        if (res.status === 200 && ['published', 'partial', 'failed'].includes(res.body.status as string))
          final.set(id, res.body as unknown as Post);
        else open.push(res.body);
      }
      if (Date.now() > deadline)
        throw new Error(
          `${open.length} of ${jobs.length} jobs not terminal 180 s after the last restart: ${JSON.stringify(open.slice(0, 3))}`,
        );
      if (final.size < jobs.length) await sleep(1000);
    }
    const terminalAfterRestartMs = Date.now() - lastRestart;
    // Every armed lost or late answer met a creating call: the outcomes below went through them.
    expect(await sandbox.pendingFaults()).toEqual([]);

    const onNetwork = new Map<string, { id: string; text: string }[]>();
    for (const network of NETWORKS) onNetwork.set(network, await sandbox.posts(network));
    const outcomes: Record<string, number> = {};
    for (const [id, post] of final) {
      for (const result of post.results) {
        const matches = onNetwork.get(result.provider)!.filter((item) => item.text === texts.get(id));
        expect({ job: id, provider: result.provider, posts: matches.length }).toEqual({
          job: id,
          provider: result.provider,
          posts: Math.min(matches.length, 1),
        });
        const key = `${result.provider}:${result.status}:${result.error_code ?? ''}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (result.status === 'published')
          expect({ provider: result.provider, id: result.platform_post_id }).toEqual({
            provider: result.provider,
            id: matches[0]?.id,
          });
        else if (result.error_code !== 'outcome_unknown')
          expect({ provider: result.provider, code: result.error_code, posts: matches.length }).toEqual({
            provider: result.provider,
            code: result.error_code,
            posts: 0,
          });
      }
    }
    // Only TikTok can end unknown here (a private post whose init answer died with the worker is not listed).
    for (const key of Object.keys(outcomes)) if (key.endsWith('outcome_unknown')) expect(key).toMatch(/^tiktok:/);
    // No fault here is the content's: a target failing otherwise (its media refused while the publisher
    // restarts, say) is a failure the system caused, however truly it is reported.
    expect(Object.keys(outcomes).filter((key) => key.includes(':failed:') && !key.endsWith('outcome_unknown'))).toEqual(
      [],
    );
    process.stdout.write(
      `fault suite: ${jobs.length} jobs terminal ${terminalAfterRestartMs} ms after the last restart; outcomes ${JSON.stringify(outcomes)}\n`,
    );
  }, 360_000);
});

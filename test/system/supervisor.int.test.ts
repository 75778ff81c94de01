import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName, uniqueNamespace } from '@svc/testing';

// scripts/start ends in `exec node scripts/supervise.mjs`, so a signal sent to scripts/start reaches
// the supervisor itself. Run here with two real children: the sandbox (no infrastructure) and
// billing (a worker with a database and queues, shut down by libs/runtime like every service).
const root = path.resolve(__dirname, '../..');
const namespace = uniqueNamespace('supervisor');
const database = uniqueName('supervisor').replace(/[^a-z0-9_]/g, '_');

interface Supervisor {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching, or rejects when the supervisor exits first. */
  until: (pattern: RegExp) => Promise<string>;
  exited: Promise<number | null>;
}

function supervise(): Supervisor {
  const child = spawn(process.execPath, ['scripts/supervise.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      SERVICES: 'sandbox,billing',
      SANDBOX_PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      AMQP_URL: TEST_AMQP_URL,
      AMQP_NAMESPACE: namespace,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_NAME: database,
      REDIS_URL: TEST_REDIS_URL,
      PROBE_PORT: '0',
      SHUTDOWN_GRACE_MS: '10000',
      FORCE_COLOR: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const watchers: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const watcher of [...watchers]) {
      if (watcher.pattern.test(line)) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(line);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = (pattern: RegExp) => {
    const seen = lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no line matching ${pattern} within 60 s:\n${lines.join('\n')}`)),
        60_000,
      );
      watchers.push({
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`supervisor exited (${code}) before ${pattern}:\n${lines.join('\n')}`));
      });
    });
  };
  return { child, lines, until, exited };
}

afterAll(async () => {
  const broker = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace,
    service: 'supervisor-test',
    logger: createLogger({ service: 'supervisor-test', level: 'silent' }),
  });
  await broker.deleteTopology({
    queues: ['billing.rpc', 'billing.work', 'billing.work.parking', 'billing.plans', 'billing.plans.parking'],
  });
  await broker.close();
  await dropDatabase(connectionConfig(TEST_DATABASE_URL, database));
});

describe('scripts/supervise.mjs (what scripts/start runs)', () => {
  it('stops every service and exits 0 on SIGTERM, restarting none', async () => {
    const supervisor = supervise();
    try {
      await Promise.all([supervisor.until(/network sandbox listening/), supervisor.until(/"msg":"billing ready"/)]);
      supervisor.child.kill('SIGTERM');
      // A restart shows as "<command> restarted" within a second or two of the children exiting;
      // the supervisor exiting first settles the race the right way.
      const restarted = supervisor.until(/ restarted$/).then(
        (line) => ({ restarted: line }),
        () => new Promise<never>(() => undefined),
      );
      const outcome = await Promise.race([supervisor.exited.then((code) => ({ exit: code })), restarted]);
      expect(outcome).toEqual({ exit: 0 });
      expect(
        supervisor.lines.some((line) => line.includes('"msg":"stopped"') && line.includes('"service":"billing"')),
      ).toBe(true);
    } finally {
      // Cleanup after a failure: a child restarted while the first signal was handled misses it.
      const interrupt = setInterval(() => supervisor.child.kill('SIGINT'), 2000);
      if (supervisor.child.exitCode === null && supervisor.child.signalCode === null) supervisor.child.kill('SIGINT');
      await supervisor.exited.finally(() => clearInterval(interrupt));
    }
  }, 120_000);
});

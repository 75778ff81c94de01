import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName, uniqueNamespace } from '@svc/testing';

// scripts/start ends in `exec node scripts/supervise.mjs`, so a signal sent to scripts/start reaches
// the supervisor itself. Run here with real children: the sandbox (no infrastructure) and billing
// (a worker with a database and queues, shut down by libs/runtime like every service), then the
// publisher, which it runs as two processes.
const root = path.resolve(__dirname, '../..');
const namespace = uniqueNamespace('supervisor');
const databases = { billing: uniqueName('supervisor').replace(/[^a-z0-9_]/g, '_'), publisher: uniqueName('supervisor_pub').replace(/[^a-z0-9_]/g, '_') };

interface Supervisor {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching, or rejects when the supervisor exits first. */
  until: (pattern: RegExp) => Promise<string>;
  exited: Promise<number | null>;
}

function supervise(services: string, database: string): Supervisor {
  const child = spawn(process.execPath, ['scripts/supervise.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      SERVICES: services,
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
      const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within 60 s:\n${lines.join('\n')}`)), 60_000);
      watchers.push({ pattern, resolve: (line) => { clearTimeout(timer); resolve(line); } });
      void exited.then((code) => { clearTimeout(timer); reject(new Error(`supervisor exited (${code}) before ${pattern}:\n${lines.join('\n')}`)); });
    });
  };
  return { child, lines, until, exited };
}

afterAll(async () => {
  const broker = await Broker.connect({ url: TEST_AMQP_URL, namespace, service: 'supervisor-test', logger: createLogger({ service: 'supervisor-test', level: 'silent' }) });
  const publisherQueues = ['rpc', 'work', 'plans', 'dispatch', 'accounts'].flatMap((queue) => [`publisher.${queue}`, `publisher.${queue}.parking`]);
  await broker.deleteTopology({ queues: ['billing.rpc', 'billing.work', 'billing.work.parking', 'billing.plans', 'billing.plans.parking', ...publisherQueues] });
  await broker.close();
  await Promise.all(Object.values(databases).map((database) => dropDatabase(connectionConfig(TEST_DATABASE_URL, database))));
});

/** Stops the supervisor, and again every 2 s: a child restarted while the first signal was handled misses it. */
async function stop(supervisor: Supervisor): Promise<void> {
  const interrupt = setInterval(() => supervisor.child.kill('SIGINT'), 2000);
  if (supervisor.child.exitCode === null && supervisor.child.signalCode === null) supervisor.child.kill('SIGINT');
  await supervisor.exited.finally(() => clearInterval(interrupt));
}

/** The nice value of this run's node processes with `PUBLISHER_ROLES=<roles>` in their environment. */
function niceOfPublishers(roles: string): number[] {
  const nice: number[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!environ.includes(`AMQP_NAMESPACE=${namespace}`) || !environ.includes(`PUBLISHER_ROLES=${roles}`)) continue;
      // The node process, not the shell concurrently starts it from (which has the same environment).
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'node' || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('services/publisher/dist/main.js')) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      nice.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // A process that ended meanwhile, or another user's.
    }
  }
  return nice;
}

describe('scripts/supervise.mjs (what scripts/start runs)', () => {
  it('stops every service and exits 0 on SIGTERM, restarting none', async () => {
    const supervisor = supervise('sandbox,billing', databases.billing);
    try {
      await Promise.all([supervisor.until(/network sandbox listening/), supervisor.until(/"msg":"billing ready"/)]);
      supervisor.child.kill('SIGTERM');
      // A restart shows as "<command> restarted" within a second or two of the children exiting;
      // the supervisor exiting first settles the race the right way.
      const restarted = supervisor.until(/ restarted$/).then((line) => ({ restarted: line }), () => new Promise<never>(() => undefined));
      const outcome = await Promise.race([supervisor.exited.then((code) => ({ exit: code })), restarted]);
      expect(outcome).toEqual({ exit: 0 });
      expect(supervisor.lines.some((line) => line.includes('"msg":"stopped"') && line.includes('"service":"billing"'))).toBe(true);
    } finally {
      await stop(supervisor);
    }
  }, 120_000);

  it('runs the publisher as a process that accepts and one that delivers at nice 10', async () => {
    const supervisor = supervise('publisher', databases.publisher);
    try {
      await Promise.all([supervisor.until(/^\[publisher +\] .*"msg":"publisher ready"/), supervisor.until(/^\[publisher-deliver\] .*"msg":"publisher ready"/)]);
      expect(niceOfPublishers('accept')).toEqual([0]);
      expect(niceOfPublishers('deliver')).toEqual([10]);
    } finally {
      await stop(supervisor);
    }
  }, 120_000);
});

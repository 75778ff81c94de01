#!/usr/bin/env node
// Resident memory (RSS) of each deployed workload once started and idle, the figures its Kubernetes
// memory request is set from (deploy/README.md, "Resource requests"):
//   pnpm build && node scripts/measure-rss.mjs [workload...]
// Each built service runs as its Kubernetes command runs it (deploy/node-flags), alone, against the
// local PostgreSQL, RabbitMQ and Redis, with a throwaway database and AMQP namespace: once it logs
// "<service> ready" and 20 s more have passed, VmRSS is read from /proc; then it is stopped (SIGTERM),
// and its database, queues and exchanges are deleted. Prints one JSON line per workload.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'libs/db/package.json'));
const pg = require('pg');
const amqp = createRequire(path.join(root, 'package.json'))('amqplib');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const SETTLE_MS = 20_000;

/** Workloads as Kubernetes runs them: the publisher as its two roles. */
const workloads = {
  gateway: { code: 'gateway' },
  dashboard: { code: 'dashboard' },
  accounts: { code: 'accounts' },
  publisher: { code: 'publisher', env: { PUBLISHER_ROLES: 'accept' } },
  'publisher-deliver': { code: 'publisher', env: { PUBLISHER_ROLES: 'deliver' } },
  scheduler: { code: 'scheduler' },
  'webhook-dispatcher': { code: 'webhook-dispatcher' },
  'analytics-sync': { code: 'analytics-sync' },
  billing: { code: 'billing' },
};

function nodeFlags(code) {
  const own = path.join(root, `deploy/node-flags.${code}`);
  return readFileSync(existsSync(own) ? own : path.join(root, 'deploy/node-flags'), 'utf8')
    .trim()
    .split(/\s+/);
}

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: `${DATABASE_URL}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Deletes every queue and exchange whose name starts with the namespace. */
async function deleteTopology(namespace) {
  const names = (kind) =>
    execFileSync('rabbitmqctl', ['-q', `list_${kind}`, 'name'], { encoding: 'utf8' })
      .split('\n')
      .filter((name) => name.startsWith(`${namespace}.`));
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  for (const queue of names('queues')) await channel.deleteQueue(queue);
  for (const exchange of names('exchanges')) await channel.deleteExchange(exchange);
  await connection.close();
}

async function measure(name) {
  const { code, env = {} } = workloads[name];
  const id = randomBytes(4).toString('hex');
  const database = `rss_${name.replace(/-/g, '_')}_${id}`;
  const namespace = `rss-${id}`;
  const child = spawn(process.execPath, [...nodeFlags(code), path.join(root, 'services', code, 'dist/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL,
      AMQP_URL,
      DATABASE_NAME: database,
      AMQP_NAMESPACE: namespace,
      PORT: '0',
      DASHBOARD_PORT: '0',
      PROBE_PORT: '0',
      // Secrets the services require, random for the run.
      JWT_SECRET: randomBytes(32).toString('hex'),
      API_KEY_PEPPER: randomBytes(32).toString('hex'),
      OAUTH_STATE_SECRET: randomBytes(32).toString('hex'),
      VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} not ready in 120 s`)), 120_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.includes(`"msg":"${code} ready"`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      const errors = [];
      createInterface({ input: child.stderr }).on('line', (line) => errors.push(line));
      child.once('exit', (status) => reject(new Error(`${name} exited (${status}) before ready: ${errors.join(' ')}`)));
    });
    await delay(SETTLE_MS);
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    return { workload: name, rss_mb: Math.round(rssKb / 1024) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await deleteTopology(namespace);
  }
}

const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(workloads);
for (const name of chosen) process.stdout.write(`${JSON.stringify(await measure(name))}\n`);

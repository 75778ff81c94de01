// accept: POST /v1/publish (one X account, text only) under autocannon, against a bare node:http
// server answering 202 with the same load generator and settings (the baseline: what HTTP on this
// machine costs with nothing behind it). The bare server is its own process, like the gateway, so it
// does not share the load generator's event loop.
//
// Measured twice on the same system. First with the sandbox's X answering at once: the accepted jobs'
// deliveries then run as fast as the cores let them, beside the accepts. Then, with `networkLatencyMs`,
// with X answering each post that late, as a real network does: the organization's deliveries go at
// the pace its slots and the network allow, and what is measured is the accept path itself.
import autocannon from 'autocannon';
import { uniqueName } from '@svc/testing';
import { BENCH_SERVICES, byService, type BenchSystem } from '../support/bench-system.ts';
import { withChildServer } from '../support/child-server.ts';
import { machineCpu, machineCpuDetail } from '../support/machine-cpu.ts';
import type { BenchFigure, BenchResult } from '../support/results.ts';

export interface AcceptOptions {
  connections: number;
  durationSeconds: number;
  /** When given, a second measurement with X answering every post this late (ms). */
  networkLatencyMs?: number | undefined;
}

const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(202, { 'content-type': 'application/json' }).end('{"job_id":"00000000-0000-0000-0000-000000000000","status":"queued"}'));
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

interface Load {
  /** Status codes other than 2xx and how many of each (e.g. "429 x3"), empty when none. */
  refused: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

let sent = 0;

async function load(
  url: string | string[],
  headers: Record<string, string>,
  body: (n: number) => string,
  options: AcceptOptions,
): Promise<Load> {
  // Every request's text is unique, as X refuses a duplicate post. (autocannon's idReplacement sends
  // no complete request with a POST body in 8.0.0, so the body is built per request.)
  const result = await autocannon({
    // autocannon 8 takes several URLs and spreads the connections over them (lib/run.js); its types say one.
    url: url as string,
    method: 'POST',
    headers,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [{ setupRequest: (request) => ({ ...request, body: body(sent++) }) }],
  });
  const refused = Object.entries(
    (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code} x${count}`)
    .join(', ');
  return {
    refused,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

/** Deliveries finished so far: the accepted jobs' deliveries share the publisher and the cores with accept. */
async function finishedDeliveries(system: BenchSystem): Promise<number> {
  const db = await system.database('publisher');
  try {
    return Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE finished_at IS NOT NULL')).rows[0]!.n,
    );
  } finally {
    await db.end();
  }
}

interface Measured {
  api: Load;
  detail: Record<string, number>;
}

/** One measured load against the gateways, with the CPU each process and the machine spent on it. */
async function measure(
  system: BenchSystem,
  urls: string[],
  headers: Record<string, string>,
  body: (n: number) => string,
  options: AcceptOptions,
): Promise<Measured> {
  // A short warm-up (connections, JIT, pools), not counted.
  await load(urls, headers, body, { ...options, durationSeconds: 1 });
  const finishedBefore = await finishedDeliveries(system);
  const cpuBefore = byService(system.cpuMs());
  const machineBefore = machineCpu();
  const api = await load(urls, headers, body, options);
  const cpuAfter = byService(system.cpuMs());
  const machine = machineCpuDetail(machineBefore, machineCpu(), api.total, 'req');
  const deliveredDuring = (await finishedDeliveries(system)) - finishedBefore;
  if (api.total === 0) throw new Error('autocannon completed no request against the gateway');
  // CPU each process spent per accepted request during the measured run (deliveries of the jobs
  // accepted meanwhile included: they run in the publisher and ask accounts for credentials).
  const servicesCpu = Object.fromEntries(
    BENCH_SERVICES.map((name) => [
      `${name} cpu ms/req`,
      Math.round(((cpuAfter[name] - cpuBefore[name]) / api.total) * 100) / 100,
    ]),
  );
  return {
    api,
    detail: {
      'p50 ms': api.p50,
      'p99 ms': api.p99,
      non2xx: api.non2xx,
      errors: api.errors,
      requests: api.total,
      'deliveries finished meanwhile': deliveredDuring,
      ...servicesCpu,
      // The rest of the machine: PostgreSQL, RabbitMQ, Redis (the rate limit), this process (autocannon and the sandbox).
      ...machine,
    },
  };
}

export async function benchAccept(system: BenchSystem, options: AcceptOptions): Promise<BenchResult> {
  const [account] = await system.connectXAccounts(1);
  const headers = { authorization: system.auth, 'content-type': 'application/json' };
  const prefix = uniqueName('accept');
  const body = (n: number) => JSON.stringify({ account_ids: [account], text: `${prefix} #${n}` });
  const baseline = await withChildServer(BARE_SERVER, (base) => load(`${base}/v1/publish`, headers, body, options));
  const figure = (name: string, { api, detail }: Measured): BenchFigure => ({
    name,
    value: api.rps,
    unit: 'req/s',
    baseline: baseline.rps,
    baselineName: 'bare node:http 202',
    target: '>= 2,000 req/s, p99 < 100 ms',
    detail: {
      ...detail,
      ...(api.refused === '' ? {} : { 'non2xx codes': api.refused }),
      'baseline p50 ms': baseline.p50,
      'baseline p99 ms': baseline.p99,
    },
  });
  // autocannon spreads its connections over the gateways (one URL each).
  const urls = system.apis.map((api) => `${api}/v1/publish`);
  const figures = [figure('accept: POST /v1/publish', await measure(system, urls, headers, body, options))];
  if (options.networkLatencyMs !== undefined) {
    await system.sandbox.createLatency('x', options.networkLatencyMs);
    try {
      figures.push(
        figure(
          `accept: POST /v1/publish, X answering in ${options.networkLatencyMs} ms`,
          await measure(system, urls, headers, body, options),
        ),
      );
    } finally {
      await system.sandbox.createLatency('x', 0);
    }
  }
  return {
    bench: 'accept',
    params: {
      connections: options.connections,
      seconds: options.durationSeconds,
      accounts: 1,
      ...(options.networkLatencyMs === undefined ? {} : { x_latency_ms: options.networkLatencyMs }),
    },
    figures,
  };
}

// One publish followed across real processes (gateway, accounts, publisher, webhook-dispatcher) by the
// traces they export to a local OTLP/HTTP receiver: the gateway's HTTP span, the publisher's RPC and
// delivery, its call to the network (the sandbox), the outbox relay's publish of post.published, the
// dispatcher's consume and its POST to the customer's endpoint all carry ONE trace id.
import os from 'node:os';
import path from 'node:path';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { serviceQueues, TEST_DATABASE_URL, uniqueName, uniqueNamespace, waitFor } from '@svc/testing';
import { SignJWT } from 'jose';
import { startMediaServer, type MediaServer } from '../../libs/providers/test/support/media-server.ts';
import { startSandbox, testProviders, type RunningSandbox } from '../../libs/providers/test/support/sandbox.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import {
  freePort,
  signalServiceProcess,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process.ts';
import { harnessEnv, JWT_SECRET } from '../support/system-harness.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

const SERVICES = ['gateway', 'accounts', 'publisher', 'webhook-dispatcher'];
const namespace = uniqueNamespace('trace');
const runId = uniqueName('trace');
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let otlp: OtlpReceiver;
let sandbox: RunningSandbox;
let media: MediaServer;
let receiver: Receiver;
let api: string;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  sandbox = await startSandbox();
  media = await startMediaServer();
  receiver = await startReceiver();
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  const env = harnessEnv(
    namespace,
    sandbox.baseUrl,
    { dir: path.join(os.tmpdir(), runId), publicBaseUrl: api },
    { LOG_LEVEL: 'info', PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint },
  );
  const start = (name: string) =>
    startServiceProcess(name, { ...env, DATABASE_NAME: `${runId}_${name.replace(/-/g, '_')}` });
  processes.push(await start('gateway'));
  processes.push(...(await Promise.all(SERVICES.slice(1).map(start))));
}, 120_000);

afterAll(async () => {
  // SIGTERM: each process exports its last spans while it stops.
  await Promise.all(processes.map((service) => signalServiceProcess(service, 'SIGTERM')));
  const broker = await Broker.connect({
    url: 'amqp://guest:guest@127.0.0.1:5672',
    namespace,
    service: 'trace-test',
    logger: createLogger({ service: 'trace-test', level: 'silent' }),
  });
  await broker.deleteTopology({
    queues: serviceQueues([...SERVICES, 'scheduler', 'analytics-sync', 'billing']),
  });
  await broker.close();
  await Promise.all(
    SERVICES.map((name) => dropDatabase(connectionConfig(TEST_DATABASE_URL, `${runId}_${name.replace(/-/g, '_')}`))),
  );
  await Promise.all([otlp?.close(), sandbox?.close(), media?.close(), receiver?.close()]);
}, 60_000);

const describeSpan = (span: ReceivedSpan) => `${span.service} ${span.kind} ${span.name}`;

it('one trace spans the request, the command, the network call, the outbox relay and the webhook POST', async () => {
  const auth = `Bearer ${await new SignJWT({ sub: 'user_1', org_id: `org_${runId}` })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(JWT_SECRET))}`;
  const call = async (route: string, body: unknown) => {
    const res = await fetch(`${api}${route}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { res, body: (await res.json()) as Record<string, unknown> };
  };

  const token = `${runId}-x`;
  const profile = await testProviders(sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 }).x.profile.fetch({
    accessToken: token,
  });
  const account = await call('/v1/accounts', {
    provider: 'x',
    platform_account_id: profile.platformAccountId,
    credentials: { access_token: token },
  });
  expect(account.res.status).toBe(201);
  const hook = await call('/v1/webhooks', { url: receiver.url('/hook'), events: ['post.published'] });
  expect(hook.res.status).toBe(201);

  const requestId = `trace-${runId}`;
  const published = await fetch(`${api}/v1/publish`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ account_ids: [account.body.id], text: `traced ${runId}` }),
  });
  expect(published.status).toBe(202);
  await receiver.waitFor('/hook', 1, 60_000);

  // The gateway's span of the publish request names its request id.
  const root = await waitFor(
    () =>
      otlp.spans.find(
        (span) => span.service === 'gateway' && span.kind === SERVER && span.attributes['request.id'] === requestId,
      ),
    { what: 'the gateway span of the publish request', timeoutMs: 30_000 },
  );
  expect(root.parentSpanId).toBe('');
  const inTrace = () => otlp.spans.filter((span) => span.traceId === root.traceId);
  const has = (service: string, kind: number, match: (span: ReceivedSpan) => boolean) =>
    inTrace().some((span) => span.service === service && span.kind === kind && match(span));
  const points = (span: ReceivedSpan, base: string) =>
    Object.values(span.attributes).some((value) => typeof value === 'string' && value.startsWith(base));
  const expected: [string, () => boolean][] = [
    ['publisher serves the RPC', () => has('publisher', SERVER, (span) => span.name.startsWith('rpc '))],
    ['publisher consumes the delivery command', () => has('publisher', CONSUMER, (s) => s.name.startsWith('process '))],
    ['publisher calls the network', () => has('publisher', CLIENT, (span) => points(span, sandbox.baseUrl))],
    [
      'publisher queries its database (Prisma through the pg driver adapter, and plain pg)',
      () => has('publisher', CLIENT, (span) => span.attributes['db.system.name'] === 'postgresql'),
    ],
    [
      'publisher relays post.published from its outbox',
      () => has('publisher', PRODUCER, (span) => span.name === 'outbox.relay post.published.v1'),
    ],
    [
      'webhook-dispatcher consumes post.published',
      () => has('webhook-dispatcher', CONSUMER, (span) => span.name === 'process post.published.v1'),
    ],
    [
      'webhook-dispatcher POSTs to the endpoint',
      () => has('webhook-dispatcher', CLIENT, (span) => points(span, receiver.url('/hook'))),
    ],
  ];
  const missing = () => expected.filter(([, found]) => !found()).map(([what]) => what);
  await waitFor(() => missing().length === 0, { what: 'every hop in the trace', timeoutMs: 30_000 }).catch(() => {
    throw new Error(
      `trace ${root.traceId} lacks: ${missing().join('; ')}; has: ${inTrace().map(describeSpan).join(', ')}`,
    );
  });
  // The relay's span continues the trace of the work that wrote the row, not a trace of its own.
  const relayed = inTrace().find((span) => span.name === 'outbox.relay post.published.v1')!;
  expect(inTrace().some((span) => span.spanId === relayed.parentSpanId)).toBe(true);
  expect(otlp.rejected).toEqual([]);

  // Logs written during the request carry its trace and span ids next to the request id.
  const gateway = processes.find((service) => service.name === 'gateway')!;
  const lines = gateway.lines
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .filter((line) => line.request_id === requestId);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.some((line) => line.trace_id === root.traceId && typeof line.span_id === 'string')).toBe(true);
}, 150_000);

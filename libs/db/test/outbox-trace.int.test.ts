// The outbox keeps the trace context of the work that wrote a row, and the relay hands it to the
// publish: a message relayed later, from another loop, continues the trace it belongs to.
import path from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createEnvelope, systemProbe, type Envelope } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { createTestDatabase, waitFor, type TestDatabase } from '@svc/testing';
import type { TraceCarrier } from '@svc/tracing';
import { PrismaClient } from '../../../services/accounts/src/generated/prisma/client.ts';
import { enqueueOutbox } from '../src/outbox.ts';
import { OutboxRelay } from '../src/outbox-relay.ts';
import { createPrismaAdapter } from '../src/prisma-bridge.ts';

const logger = createLogger({ service: 'outbox-trace-test', level: 'silent' });
const provider = new NodeTracerProvider();
let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  provider.register();
  database = await createTestDatabase({
    prefix: 'outbox_trace',
    serviceDir: path.resolve(__dirname, '../../../services/accounts'),
  });
  db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const probe = (n: number) => createEnvelope(systemProbe, { n }, { orgId: 'org_1', requestId: 'req_1' });

it('stores the active trace context with each row and hands it to the relay publish; NULL outside a trace', async () => {
  const traced = [probe(1), probe(2)];
  const untraced = probe(3);
  const span = trace.getTracer('test').startSpan('accept');
  await context.with(trace.setSpan(context.active(), span), () =>
    db.$transaction(async (tx) => enqueueOutbox(tx, traced)),
  );
  span.end();
  await db.$transaction(async (tx) => enqueueOutbox(tx, [untraced]));

  const stored = await db.$queryRawUnsafe<{ id: string; trace_context: TraceCarrier | null }[]>(
    'SELECT id::text AS id, trace_context FROM outbox_messages ORDER BY id',
  );
  const { traceId, spanId } = span.spanContext();
  const expected = { traceparent: `00-${traceId}-${spanId}-01` };
  expect(new Map(stored.map((row) => [row.id, row.trace_context]))).toEqual(
    new Map([
      [traced[0]!.message_id, expected],
      [traced[1]!.message_id, expected],
      [untraced.message_id, null],
    ]),
  );

  const published = new Map<string, TraceCarrier | null>();
  const relay = new OutboxRelay({
    db,
    logger,
    publisher: {
      publishEnvelope: (envelope: Envelope, carrier: TraceCarrier | null) => {
        published.set(envelope.message_id, carrier);
        return Promise.resolve();
      },
    },
  });
  await waitFor(async () => (await relay.relayBatch()) === 0 && published.size === 3, { what: 'all three relayed' });
  expect(published.get(traced[0]!.message_id)).toEqual(expected);
  expect(published.get(traced[1]!.message_id)).toEqual(expected);
  expect(published.get(untraced.message_id)).toBeNull();
});

import { createEnvelope, systemProbe } from '@svc/contracts';
import type { Broker } from '../src/index.ts';
import { connectBroker, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('depth');
const waits: { queue: string; ms: number }[] = [];
let broker: Broker;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
let started = 0;

beforeAll(async () => {
  broker = await connectBroker(namespace, 'depth', { metrics: { onWait: (queue, ms) => waits.push({ queue, ms }) } });
  await broker.consume({
    queue: 'depth.work',
    messages: [systemProbe],
    prefetch: 1,
    handlers: {
      'system.probe.v1': async () => {
        started += 1;
        await held;
      },
    },
  });
  await broker.serveRpc({ messages: [], handlers: {} });
});

afterAll(async () => {
  release();
  await broker.deleteTopology();
  await broker.close();
});

describe('queue depths and waiting time', () => {
  it('counts the ready messages and consumers of the work, parking and RPC queues it consumes', async () => {
    // The first message holds the only prefetch slot, so the next two stay ready in the queue.
    const old = { ...createEnvelope(systemProbe, { n: 1 }, { orgId: null, requestId: null }) };
    old.occurred_at = new Date(Date.now() - 90_000).toISOString();
    await broker.publishEnvelope(old);
    await waitFor(() => started === 1, 'the first message to be handled');
    for (const n of [2, 3]) await broker.publish(systemProbe, { n }, { orgId: null, requestId: null });

    const work = `${namespace}.depth.work`;
    await waitFor(
      async () => (await broker.queueDepths()).find((d) => d.queue === work)?.ready === 2,
      'two messages ready',
    );
    const depths = await broker.queueDepths();
    expect(depths).toEqual(
      expect.arrayContaining([
        { queue: work, ready: 2, consumers: 1 },
        { queue: `${work}.parking`, ready: 0, consumers: 0 },
        { queue: `${namespace}.depth.rpc`, ready: 0, consumers: 1 },
      ]),
    );
    expect(depths).toHaveLength(3);
  });

  it('reports how long a message waited before its first delivery, from its creation', () => {
    expect(waits).toHaveLength(1);
    expect(waits[0]!.queue).toBe(`${namespace}.depth.work`);
    expect(waits[0]!.ms).toBeGreaterThanOrEqual(90_000);
  });
});

import { Type, defineMessage, systemPing, systemProbe } from '@svc/contracts';
import type { Broker } from '../src/index.ts';
import { testHooks } from '../src/internals.ts';
import { connectBroker, uniqueNamespace, waitFor } from './helpers.ts';

const hold = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'accounts.hold.v1',
  service: 'accounts',
  payload: Type.Object({}),
  reply: Type.Object({}),
});

const namespace = uniqueNamespace('reconnect');
let broker: Broker;
let reconnects = 0;
const held: (() => void)[] = [];
const handled: number[] = [];

beforeAll(async () => {
  broker = await connectBroker(namespace, 'accounts', { metrics: { onReconnect: () => (reconnects += 1) } });
  await broker.consume({
    queue: 'survivor',
    messages: [systemProbe],
    handlers: { 'system.probe.v1': async (envelope) => void handled.push(envelope.payload.n) },
  });
  await broker.serveRpc({
    messages: [hold],
    handlers: {
      'accounts.hold.v1': async () => {
        await new Promise<void>((resolve) => held.push(resolve));
        return {};
      },
    },
  });
});

afterAll(async () => {
  for (const release of held) release();
  await broker.deleteTopology();
  await broker.close();
});

describe('reconnect', () => {
  it('comes back after the connection drops: consumers, publishing and RPC resume', async () => {
    await broker.publish(systemProbe, { n: 1 }, { orgId: null, requestId: null });
    await waitFor(() => handled.includes(1), 'the first message');

    const pending = broker
      .rpc(hold, {}, { orgId: null, requestId: null, timeoutMs: 20000 })
      .catch((error: unknown) => error);
    await waitFor(() => held.length === 1, 'the RPC to reach its handler');
    broker[testHooks].dropConnection();
    // Failed by the drop, not by its 20 s timeout ("did not answer within"), which would say otherwise.
    expect(await pending).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringContaining('unreachable'),
    });

    await waitFor(() => reconnects === 1 && broker.isConnected(), 'the broker to reconnect');
    await broker.publish(systemProbe, { n: 2 }, { orgId: null, requestId: null });
    await waitFor(() => handled.includes(2), 'a message published after the reconnect');
    const pong = await broker.rpc(systemPing, {}, { orgId: null, requestId: null, to: 'accounts' });
    expect(pong.service).toBe('accounts');
  });

  it('a publish issued while disconnected waits for the reconnect instead of being dropped', async () => {
    broker[testHooks].dropConnection();
    await waitFor(() => !broker.isConnected(), 'the connection to drop', 5000);
    await broker.publish(systemProbe, { n: 3 }, { orgId: null, requestId: null });
    await waitFor(() => handled.includes(3), 'the message published during the outage');
    expect(reconnects).toBe(2);
  });

  it('reopens a consumer channel the broker closed while the connection stayed up', async () => {
    await broker[testHooks].loseConsumerChannels();
    await broker.publish(systemProbe, { n: 4 }, { orgId: null, requestId: null });
    await waitFor(() => handled.includes(4), 'the message after the channel came back');
    expect(reconnects).toBe(2);
  });
});

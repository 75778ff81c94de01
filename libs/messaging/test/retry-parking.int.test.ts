import type { Channel, ChannelModel, GetMessage } from 'amqplib';
import { systemProbe, type DeliveryContext, type Envelope } from '@svc/contracts';
import { validationError } from '@svc/errors';
import { createNames, type Broker } from '../src/index.ts';
import { connectBroker, rawConnection, sleep, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('retry');
const names = createNames(namespace);
const tiers = [200, 400, 800];

let raw: ChannelModel;
let channel: Channel;
let broker: Broker;

beforeAll(async () => {
  raw = await rawConnection();
  channel = await raw.createChannel();
  broker = await connectBroker(namespace, 'worker', { retryDelaysMs: tiers, maxRetries: 3 });
});

afterAll(async () => {
  await raw.close();
  await broker.deleteTopology();
  await broker.close();
});

async function getParked(queue: string): Promise<GetMessage> {
  let parked: GetMessage | false = false;
  await waitFor(
    async () => (parked = await channel.get(names.parkingQueue(queue), { noAck: false })) !== false,
    `a parked message in ${queue}`,
  );
  return parked as unknown as GetMessage;
}

describe('business retries', () => {
  it('retries a failing handler with growing delays, parks it, and requeueParked brings it back', async () => {
    const attempts: { attempt: number; at: number; messageId: string }[] = [];
    let failing = true;
    await broker.consume({
      queue: 'flaky',
      messages: [systemProbe],
      handlers: {
        'system.probe.v1': async (envelope: Envelope<{ n: number }>, context: DeliveryContext) => {
          attempts.push({ attempt: context.attempt, at: Date.now(), messageId: envelope.message_id });
          if (failing) throw new Error('provider timed out');
        },
      },
    });
    await broker.publish(systemProbe, { n: 1 }, { orgId: 'org_1', requestId: 'req_1', messageId: 'retry-me' });

    const parked = await getParked('flaky');
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(tiers[i]! - 50));
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
    expect(parked.properties.messageId).toBe('retry-me');
    expect(parked.properties.headers).toMatchObject({
      'x-park-reason': 'retries_exhausted',
      'x-retry-count': 3,
      'x-attempts': 4,
    });
    expect(JSON.parse(parked.content.toString())).toMatchObject({ message_id: 'retry-me', payload: { n: 1 } });
    channel.nack(parked, false, true);

    failing = false;
    await waitFor(
      async () => (await channel.checkQueue(names.parkingQueue('flaky'))).messageCount === 1,
      'the parked message to be back',
    );
    expect(await broker.requeueParked('flaky')).toBe(1);
    await waitFor(() => attempts.length === 5, 'the requeued message to be handled');
    expect(attempts[4]).toMatchObject({ attempt: 1, messageId: 'retry-me' });
    expect((await channel.checkQueue(names.parkingQueue('flaky'))).messageCount).toBe(0);
  });

  it('parks at once on a non-retryable AppError', async () => {
    const attempts: number[] = [];
    await broker.consume({
      queue: 'strict',
      messages: [systemProbe],
      handlers: {
        'system.probe.v1': async (_envelope, context) => {
          attempts.push(context.attempt);
          throw validationError('The post text is too long.');
        },
      },
    });
    await broker.publish(systemProbe, { n: 2 }, { orgId: null, requestId: null, messageId: 'bad-one' });
    const parked = await getParked('strict');
    expect(parked.properties.messageId).toBe('bad-one');
    expect(parked.properties.headers).toMatchObject({
      'x-park-reason': 'non_retryable',
      'x-last-error': 'validation_error: The post text is too long.',
    });
    channel.ack(parked);
    // Kept: a retry that should never come would come within the first tier; three of them give it time.
    await sleep(tiers[0]! * 3);
    expect(attempts).toEqual([1]);
  });

  it('parks a message that breaks its contract without calling the handler', async () => {
    let called = false;
    await broker.consume({
      queue: 'guarded',
      messages: [systemProbe],
      handlers: { 'system.probe.v1': async () => void (called = true) },
    });
    channel.publish(names.events, systemProbe.type, Buffer.from('{"not":"an envelope"}'), { messageId: 'junk' });
    const parked = await getParked('guarded');
    expect(parked.properties.headers).toMatchObject({ 'x-park-reason': 'invalid' });
    channel.ack(parked);
    expect(called).toBe(false);
  });
});

import type { Channel, Message } from 'amqplib';
import { AckCoalescer } from './ack-coalescer.ts';

const message = (deliveryTag: number) => ({ fields: { deliveryTag } }) as Message;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function fakeChannel() {
  const acks: [number, boolean][] = [];
  const channel = {
    ack: (m: Message, multiple: boolean) => acks.push([m.fields.deliveryTag, multiple]),
  } as unknown as Channel;
  return { channel, acks };
}

describe('AckCoalescer', () => {
  it('acks the deliveries finished in one turn with one multiple ack, and nothing before the turn ends', async () => {
    const { channel, acks } = fakeChannel();
    const coalescer = new AckCoalescer(channel, () => undefined);
    for (const tag of [1, 2, 3, 4]) coalescer.received(message(tag));
    for (const tag of [3, 1, 4, 2]) coalescer.ack(message(tag));
    expect(acks).toEqual([]);
    await turn();
    expect(acks).toEqual([[4, true]]);
  });

  it('never acks past a delivery in flight: what finished beyond it is acked alone, in the same turn', async () => {
    const { channel, acks } = fakeChannel();
    const coalescer = new AckCoalescer(channel, () => undefined);
    for (const tag of [1, 2, 3, 4, 5]) coalescer.received(message(tag));
    for (const tag of [1, 2, 4, 5]) coalescer.ack(message(tag));
    await turn();
    expect(acks).toEqual([
      [2, true],
      [4, false],
      [5, false],
    ]);
    // The slow one finishes later: its own ack, nothing acked twice.
    coalescer.ack(message(3));
    await turn();
    expect(acks.slice(3)).toEqual([[3, true]]);
  });

  it('lets a delivery its caller settled alone (a nack) drop out of the way', async () => {
    const { channel, acks } = fakeChannel();
    const coalescer = new AckCoalescer(channel, () => undefined);
    for (const tag of [1, 2, 3]) coalescer.received(message(tag));
    coalescer.settledAlone(message(1));
    coalescer.ack(message(2));
    coalescer.ack(message(3));
    await turn();
    expect(acks).toEqual([[3, true]]);
  });

  it('reports an ack the channel refused (closed meanwhile) instead of throwing', async () => {
    const errors: unknown[] = [];
    const channel = {
      ack: () => {
        throw new Error('Channel closed');
      },
    } as unknown as Channel;
    const coalescer = new AckCoalescer(channel, (error) => errors.push(error));
    coalescer.received(message(1));
    coalescer.ack(message(1));
    await turn();
    expect(errors).toHaveLength(1);
  });
});

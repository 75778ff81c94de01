import type { Channel, Message } from 'amqplib';

/**
 * The acks of one channel's deliveries, sent once per turn of the event loop: the handlers that
 * finish together (a group commit, a batch of events) are acked by one `basic.ack` with `multiple`
 * up to the highest delivery tag below which every delivery is settled, instead of one ack each.
 * Each ack is a frame the consumer writes and a settlement the broker applies (for a quorum queue, a
 * command through its log): docs/performance.md, "Deliver path".
 *
 * No ack waits longer than the turn it was asked in: one finished past a delivery still running is
 * sent alone, as before, so a slow handler never holds later deliveries unacked (they count against
 * the prefetch). A delivery settled otherwise (nack, reject) is settled at once by its caller, through
 * `settledAlone`, and no `multiple` ack ever reaches past a delivery still in flight.
 */
export class AckCoalescer {
  /** Delivery tags received and not yet acked or settled, in the order the broker sent them. */
  private readonly outstanding = new Set<number>();
  private readonly finished = new Set<number>();
  private scheduled = false;

  constructor(
    private readonly channel: Channel,
    /** A failed ack (the channel closed meanwhile): its deliveries will be redelivered. */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A delivery was received on this channel. */
  received(message: Message): void {
    this.outstanding.add(message.fields.deliveryTag);
  }

  /** Its handler is done: the ack leaves with the others of this turn. */
  ack(message: Message): void {
    this.finished.add(message.fields.deliveryTag);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Settled by the caller on its own (nack or reject): no longer outstanding. */
  settledAlone(message: Message): void {
    this.outstanding.delete(message.fields.deliveryTag);
  }

  /** Sends the acks asked for so far now: before the channel closes (a graceful stop), or at the turn's end. */
  flush(): void {
    this.scheduled = false;
    // Tags come in rising order, and a Set iterates in insertion order: the contiguous finished
    // prefix is acked with one `multiple` ack, anything finished beyond a delivery in flight alone.
    let prefix: number | undefined;
    for (const tag of this.outstanding) {
      if (!this.finished.has(tag)) break;
      prefix = tag;
    }
    const alone: number[] = [];
    for (const tag of this.finished) if (prefix === undefined || tag > prefix) alone.push(tag);
    for (const tag of this.outstanding) {
      if (prefix === undefined || tag > prefix) break;
      this.outstanding.delete(tag);
    }
    this.finished.clear();
    for (const tag of alone) this.outstanding.delete(tag);
    try {
      if (prefix !== undefined) this.channel.ack(tagged(prefix), true);
      for (const tag of alone) this.channel.ack(tagged(tag), false);
    } catch (error) {
      this.onError(error);
    }
  }
}

/** amqplib's ack reads only the delivery tag of the message it is given. */
function tagged(deliveryTag: number): Message {
  return { fields: { deliveryTag } } as Message;
}

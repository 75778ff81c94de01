// Watches what a system publishes, for tests that count messages: the outbox deletes a message once
// the broker confirmed it, so the broker is where "sent once" is observed. The queue is exclusive and
// server-named: RabbitMQ deletes it with the connection, so a run leaves nothing on the shared broker.
import { createNames } from '@svc/messaging';
import { TEST_AMQP_URL } from '@svc/testing';
import amqp from 'amqplib';

export interface MessageTap {
  /**
   * Envelopes seen so far, of the types the tap was opened for, each message once: a relay may send
   * a message again (at least once), so a copy of a message id already seen is not listed twice.
   */
  readonly envelopes: { message_id: string; type: string; org_id: string | null; payload: Record<string, unknown> }[];
  /** Waits until `predicate` holds for the envelopes seen (10 s at most, then throws). */
  until(predicate: (envelopes: MessageTap['envelopes']) => boolean): Promise<MessageTap['envelopes']>;
  close(): Promise<void>;
}

/** Binds to the namespace's events and commands exchanges for `types` (routing keys are message types). */
export async function tapMessages(namespace: string, types: readonly string[]): Promise<MessageTap> {
  const names = createNames(namespace);
  const connection = await amqp.connect(TEST_AMQP_URL);
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  for (const exchange of [names.events, names.commands]) {
    await channel.assertExchange(exchange, 'topic', { durable: true });
    for (const type of types) await channel.bindQueue(queue, exchange, type);
  }
  const envelopes: MessageTap['envelopes'] = [];
  const seen = new Set<string>();
  await channel.consume(
    queue,
    (message) => {
      if (message === null) return;
      const envelope = JSON.parse(message.content.toString('utf8')) as MessageTap['envelopes'][number];
      if (seen.has(envelope.message_id)) return;
      seen.add(envelope.message_id);
      envelopes.push(envelope);
    },
    { noAck: true },
  );
  return {
    envelopes,
    async until(predicate) {
      const deadline = Date.now() + 10_000;
      while (!predicate(envelopes)) {
        if (Date.now() > deadline)
          throw new Error(
            `the awaited messages did not arrive in 10 s; seen: ${JSON.stringify(envelopes.map((envelope) => envelope.type))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return envelopes;
    },
    close: async () => {
      await connection.close();
    },
  };
}

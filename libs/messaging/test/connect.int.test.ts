import { connectBroker } from './helpers.ts';
import { Broker } from '../src/index.ts';
import { createLogger } from '@svc/logger';

describe('Broker.connect', () => {
  it('rejects with the URL, without its password, when RabbitMQ is unreachable', async () => {
    const attempt = Broker.connect({
      url: 'amqp://guest:s3cret@127.0.0.1:1',
      namespace: 't.unreachable',
      service: 'gateway',
      logger: createLogger({ service: 'gateway', level: 'silent' }),
    });
    await expect(attempt).rejects.toThrow(/^Cannot connect to RabbitMQ at amqp:\/\/guest@127\.0\.0\.1:1/);
    await expect(attempt).rejects.not.toThrow(/s3cret/);
  });

  it('connects and reports readiness', async () => {
    const broker = await connectBroker(`t.connect.${Date.now().toString(36)}`, 'gateway');
    expect(broker.isConnected()).toBe(true);
    await broker.deleteTopology();
    await broker.close();
    expect(broker.isConnected()).toBe(false);
  });
});

import { createNames, redactUrl } from './names.ts';

describe('createNames', () => {
  it('prefixes every name with the namespace, "svc" by default', () => {
    const names = createNames('');
    expect([names.events, names.commands, names.retry, names.parking]).toEqual([
      'svc.events',
      'svc.commands',
      'svc.retry',
      'svc.parking',
    ]);
    expect(names.retryQueue(5000)).toBe('svc.retry.5000');
    expect(names.workQueue('publisher.delivery')).toBe('svc.publisher.delivery');
    expect(names.parkingQueue('publisher.delivery')).toBe('svc.publisher.delivery.parking');
    expect(names.rpcQueue('accounts')).toBe('svc.accounts.rpc');
    expect(createNames('t.run1').events).toBe('t.run1.events');
  });
});

describe('redactUrl', () => {
  it('drops the password', () => {
    expect(redactUrl('amqp://guest:s3cret@rabbit:5672/vh')).toBe('amqp://guest@rabbit:5672/vh');
  });
});

import type { Message } from 'amqplib';
import { AppError } from '@svc/errors';
import { copyProperties, errorSummary, retryCountOf } from './amqp-message.ts';

function message(headers: Record<string, unknown>): Message {
  return {
    content: Buffer.from('{}'),
    fields: { deliveryTag: 1, redelivered: false, exchange: '', routingKey: 'q' },
    properties: { messageId: 'm1', type: 'system.probe.v1', timestamp: 1, contentType: 'application/json', headers },
  } as unknown as Message;
}

describe('copyProperties', () => {
  it('keeps the identity and the request headers, drops broker bookkeeping, applies overrides', () => {
    const original = message({
      'x-request-id': 'r1',
      'x-death': [{ count: 1 }],
      'x-first-death-queue': 'svc.retry.1000',
      'x-retry-count': 1,
      'x-publish-id': 'p1',
    });
    const copy = copyProperties(original, { 'x-retry-count': 2, 'x-last-error': undefined });
    expect(copy).toEqual({
      persistent: true,
      messageId: 'm1',
      type: 'system.probe.v1',
      timestamp: 1,
      contentType: 'application/json',
      headers: { 'x-request-id': 'r1', 'x-retry-count': 2 },
    });
  });
});

describe('retryCountOf', () => {
  it('reads our own header and treats anything else as a first attempt', () => {
    expect(retryCountOf(message({ 'x-retry-count': 3 }))).toBe(3);
    expect(retryCountOf(message({ 'x-retry-count': 'junk' }))).toBe(0);
    expect(retryCountOf(message({}))).toBe(0);
  });
});

describe('errorSummary', () => {
  it('never copies the text of an unexpected error, which may hold secrets', () => {
    expect(errorSummary(new AppError('conflict', 'Already queued.'))).toBe('conflict: Already queued.');
    expect(errorSummary(new Error('password=hunter2'))).not.toContain('hunter2');
  });
});

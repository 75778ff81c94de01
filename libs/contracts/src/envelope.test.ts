import { AppError } from '@svc/errors';
import { assertEnvelope, createEnvelope, systemProbe } from './index.ts';

describe('createEnvelope', () => {
  it('fills id, type, time and context', () => {
    const envelope = createEnvelope(systemProbe, { n: 1 }, { orgId: 'org_1', requestId: 'req_1' });
    expect(envelope).toEqual({
      // A version 7 UUID (ids.ts): the outboxes and inboxes keyed by it take new rows in order.
      message_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      type: 'system.probe.v1',
      occurred_at: expect.any(String),
      request_id: 'req_1',
      org_id: 'org_1',
      payload: { n: 1 },
    });
    expect(new Date(envelope.occurred_at).toISOString()).toBe(envelope.occurred_at);
    expect(() => assertEnvelope(envelope)).not.toThrow();
  });

  it('keeps a given message id, e.g. an outbox row id', () => {
    const envelope = createEnvelope(systemProbe, { n: 1 }, { orgId: null, requestId: null, messageId: 'outbox-7' });
    expect(envelope.message_id).toBe('outbox-7');
  });

  it('refuses to wrap an invalid payload', () => {
    // @ts-expect-error n must be a number: the static type comes from the schema
    expect(() => createEnvelope(systemProbe, { n: 'x' }, { orgId: null, requestId: null })).toThrow(AppError);
  });
});

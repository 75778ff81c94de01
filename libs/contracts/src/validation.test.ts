import { Type } from '@sinclair/typebox';
import { AppError } from '@svc/errors';
import { assertEnvelope, assertPayload, assertReply, defineMessage, systemPing, systemProbe } from './index.ts';

function caught(fn: () => void): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('assertPayload', () => {
  it('accepts a payload that matches the schema', () => {
    expect(() => assertPayload(systemProbe, { n: 3 })).not.toThrow();
  });

  it('throws validation_error listing every problem with its path', () => {
    const def = defineMessage({
      kind: 'command',
      type: 'test.thing.run.v1',
      payload: Type.Object({ id: Type.String({ format: 'uuid' }), count: Type.Integer({ minimum: 1 }) }),
    });
    const error = caught(() => assertPayload(def, { id: 'nope', count: 0 }));
    expect(error.code).toBe('validation_error');
    expect(error.message).toBe('The payload of message test.thing.run.v1 is invalid.');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/payload/id', message: 'must match format "uuid"' },
        { path: '/payload/count', message: 'must be >= 1' },
      ]),
    );
  });

  it('names a missing property in the path', () => {
    const error = caught(() => assertPayload(systemProbe, {}));
    expect(error.details).toEqual([{ path: '/payload/n', message: "must have required property 'n'" }]);
  });
});

describe('assertReply', () => {
  it('checks the reply schema of an RPC', () => {
    expect(() => assertReply(systemPing, { service: 'accounts', time: new Date().toISOString() })).not.toThrow();
    const error = caught(() => assertReply(systemPing, { service: 'accounts', time: 'yesterday' }));
    expect(error.code).toBe('validation_error');
    expect(error.details?.[0]?.path).toBe('/reply/time');
  });
});

describe('assertEnvelope', () => {
  it('rejects a value that is not an envelope', () => {
    const error = caught(() => assertEnvelope({ type: 'system.probe.v1', payload: {} }));
    expect(error.details?.map((detail) => detail.path)).toEqual(
      expect.arrayContaining(['/message_id', '/occurred_at', '/request_id', '/org_id']),
    );
  });
});

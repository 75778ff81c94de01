import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';

/** Answered by every service's RPC server, so `service` is left open and the caller names the target. */
export const systemPing = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'system.ping.v1',
  service: undefined,
  payload: Type.Object({}),
  reply: Type.Object({ service: Type.String(), time: Type.String({ format: 'date-time' }) }),
  description: 'Liveness of a service through the broker, end to end.',
});

/** Carries nothing of business value: used by tests and the outbox relay check to exercise the pipes. */
export const systemProbe = defineMessage({
  kind: 'event',
  type: 'system.probe.v1',
  payload: Type.Object({ n: Type.Integer() }),
  description: 'A probe event for tests and health checks.',
});

/**
 * Several requests to one service in one message: libs/messaging's RPC client sends the calls it is
 * given in one turn of its event loop together (two broker messages per request would be a
 * third of RabbitMQ's work on the accept path). Answered by every RPC server. Each request inside
 * is an envelope of its own, checked and answered as if it had come alone; the answers go back as
 * the requests finish, under each request's own id, those finishing together in one reply of this
 * type. A reply to the batch itself that is an error means no request inside was run (a server that
 * does not know this type answers so), and the client sends them again one by one.
 */
export const systemBatch = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'system.batch.v1',
  service: undefined,
  payload: Type.Object({ requests: Type.Array(Type.Unknown(), { minItems: 2, maxItems: 64 }) }),
  reply: Type.Object({
    replies: Type.Array(Type.Object({ correlation_id: Type.String(), reply: Type.Unknown() }), { minItems: 1 }),
  }),
  description: 'Requests to one service sent together; each is answered under its own id.',
});

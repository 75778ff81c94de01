import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';

/** Answered by every service's RPC server, so `service` is left open and the caller names the target. */
export const systemPing = defineMessage({
  kind: 'rpc',
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

import { Type, defineMessage, systemPing, systemProbe } from '@svc/contracts';
import type { Broker } from './index.ts';

const renamed = defineMessage({
  kind: 'command',
  type: 'test.rename.v1',
  payload: Type.Object({ name: Type.String() }),
});

// Compile-time contract of the public API: these functions are type-checked, never run against a broker.
describe('Broker typing', () => {
  it('requires one handler per consumed message, typed by its schema', () => {
    const wiring = async (broker: Broker) => {
      await broker.consume({
        queue: 'q',
        messages: [systemProbe, renamed],
        handlers: {
          'system.probe.v1': async (envelope) => void envelope.payload.n.toFixed(),
          'test.rename.v1': async (envelope) => void envelope.payload.name.toUpperCase(),
        },
      });
      await broker.consume({
        queue: 'q',
        messages: [systemProbe, renamed],
        // @ts-expect-error the handler for test.rename.v1 is missing
        handlers: { 'system.probe.v1': async () => undefined },
      });
      // @ts-expect-error the payload type comes from the schema
      await broker.publish(renamed, { name: 1 }, { orgId: null, requestId: null });
      const pong = await broker.rpc(systemPing, {}, { orgId: null, requestId: null, to: 'accounts' });
      pong.service.toUpperCase();
      // @ts-expect-error an RPC definition cannot be published as an event
      await broker.publish(systemPing, {}, { orgId: null, requestId: null });
    };
    expect(typeof wiring).toBe('function');
  });
});

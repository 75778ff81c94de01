import { Type } from '@sinclair/typebox';
import {
  defineMessage,
  findMessage,
  messageCatalog,
  systemProbe,
  type Envelope,
  type Handlers,
  type PayloadOf,
  type ReplyOf,
} from './index.ts';

describe('defineMessage', () => {
  it('accepts a versioned wire name', () => {
    const def = defineMessage({ kind: 'event', type: 'post.published.v1', payload: Type.Object({}) });
    expect(def.type).toBe('post.published.v1');
  });

  it.each(['post.published', 'Post.published.v1', 'published.v0', 'post.published.v1.extra'])(
    'rejects "%s"',
    (type) => {
      // @ts-expect-error the wire name type rejects most of these at compile time as well
      expect(() => defineMessage({ kind: 'event', type, payload: Type.Object({}) })).toThrow(
        /must be lower-case dotted words/,
      );
    },
  );

  it('lets payload and reply types flow from the schemas', () => {
    const def = defineMessage({
      kind: 'rpc',
      callers: 'any',
      type: 'accounts.credentials.get.v1',
      service: 'accounts',
      payload: Type.Object({ account_id: Type.String() }),
      reply: Type.Object({ token: Type.String() }),
    });
    const payload: PayloadOf<typeof def> = { account_id: 'a' };
    const reply: ReplyOf<typeof def> = { token: 't' };
    expect([payload, reply, def.service]).toEqual([{ account_id: 'a' }, { token: 't' }, 'accounts']);
  });
});

describe('messageCatalog', () => {
  it('finds a definition by its wire type', () => {
    expect(messageCatalog['system.probe.v1']).toBe(systemProbe);
    expect(findMessage('system.probe.v1')).toBe(systemProbe);
    expect(findMessage('nope.v1')).toBeUndefined();
    expect(findMessage('toString')).toBeUndefined();
  });
});

describe('Handlers', () => {
  it('types one handler per message', async () => {
    const other = defineMessage({ kind: 'command', type: 'test.other.v1', payload: Type.Object({ s: Type.String() }) });
    const seen: string[] = [];
    const handlers: Handlers<[typeof systemProbe, typeof other]> = {
      'system.probe.v1': async (envelope: Envelope<{ n: number }>) => {
        seen.push(String(envelope.payload.n));
      },
      'test.other.v1': async (envelope) => {
        seen.push(envelope.payload.s);
      },
    };
    // @ts-expect-error a missing handler does not compile
    const missing: Handlers<[typeof systemProbe, typeof other]> = { 'system.probe.v1': async () => undefined };
    expect(missing).toBeDefined();
    expect(other.kind).toBe('command');
    await handlers['test.other.v1'](
      { message_id: 'm', type: 'test.other.v1', occurred_at: '', request_id: null, org_id: null, payload: { s: 'x' } },
      { redelivered: false, attempt: 1 },
    );
    expect(seen).toEqual(['x']);
  });
});

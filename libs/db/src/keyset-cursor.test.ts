import { decodeKeysetCursor, encodeKeysetCursor } from './keyset-cursor.ts';

describe('keyset cursors', () => {
  const position = { createdAt: new Date('2026-11-22T10:00:00.000Z'), id: '0b7e6a52-5b0f-4f3e-9d7a-2f6d8c1e4a10' };

  it('round-trips a position', () => {
    expect(decodeKeysetCursor(encodeKeysetCursor(position))).toEqual(position);
  });

  it.each([
    ['not base64 JSON', 'zzz'],
    [
      'an id that is not a UUID',
      Buffer.from(JSON.stringify({ t: position.createdAt.toISOString(), i: "x' OR 1=1" })).toString('base64url'),
    ],
    ['a bad time', Buffer.from(JSON.stringify({ t: 'yesterday', i: position.id })).toString('base64url')],
    ['a JSON scalar', Buffer.from('42').toString('base64url')],
  ])('refuses %s with a validation error', (_name, cursor) => {
    expect(() => decodeKeysetCursor(cursor)).toThrow(
      expect.objectContaining({ code: 'validation_error', status: 400 }),
    );
  });
});

import { validationError } from '@svc/errors';

/** The position after which a newest-first page continues: the last row's (created_at, id). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An opaque cursor for keyset pagination on (created_at, id). */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ t: position.createdAt.toISOString(), i: position.id })).toString('base64url');
}

/**
 * Reads a cursor made by `encodeKeysetCursor`. Anything else is the caller's mistake, a 400, never
 * a value handed to the database: an id that is not a UUID once made PostgreSQL fail the query (500).
 */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    const createdAt = new Date(String(value.t));
    if (typeof value.i !== 'string' || !UUID.test(value.i) || Number.isNaN(createdAt.getTime()))
      throw new Error('bad cursor');
    return { createdAt, id: value.i };
  } catch {
    throw validationError('The cursor is not valid; pass the next_cursor of a previous page.', [
      { path: '/query/cursor', message: 'is not a cursor of this list' },
    ]);
  }
}

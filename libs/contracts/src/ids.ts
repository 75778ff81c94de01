import { v7 } from 'uuid';

/**
 * A new id for a row or a message: a UUID version 7 (RFC 9562), its first 48 bits the milliseconds
 * since the epoch, then random bits (74 of them; ids made in the same millisecond by one process
 * count up). Ids made later sort later, so a B-tree keyed by them takes its inserts on its right
 * edge and keeps recent rows on few pages. With random (version 4) ids every insert and every lookup
 * of a recent row landed on any leaf: once those indexes outgrew PostgreSQL's buffer cache, a
 * delivery read some of their pages back in, and the first change of each page after a checkpoint
 * wrote the whole page to the WAL (docs/performance.md, "History").
 */
export const newId = (): string => v7();

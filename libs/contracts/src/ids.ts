import { v7 } from 'uuid';

/**
 * A new id for a row or a message: a UUID version 7 (RFC 9562), its first 48 bits the milliseconds
 * since the epoch, then random bits (74 of them; ids made in the same millisecond by one process
 * count up). Ids made later sort later, so a B-tree keyed by them takes its inserts on its right
 * edge and keeps recent rows on few pages. With random (version 4) ids every insert and every lookup
 * of a recent row landed on any leaf, and once the indexes of the tables that keep history outgrew
 * PostgreSQL's buffer cache each delivery read pages back in and wrote a full-page image to the WAL
 * for each page it touched first after a checkpoint: a cost that grew with the history kept
 * (docs/performance.md, "Ids in the order they are made").
 */
export const newId = (): string => v7();

import { newId } from './index.ts';

describe('newId', () => {
  it('is a version 7 UUID whose first 48 bits are the time it was made', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sorts later ids after earlier ones, within one millisecond too (the order a B-tree inserts them in)', () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    // PostgreSQL compares uuids byte by byte: the order of their lowercase hex text.
    expect([...ids].sort()).toEqual(ids);
  });
});

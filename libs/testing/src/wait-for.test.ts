import { waitFor } from './wait-for.ts';

describe('waitFor', () => {
  afterEach(() => jest.useRealTimers());

  it('returns the first value that holds, polling until then', async () => {
    let reads = 0;
    await expect(
      waitFor(() => (++reads >= 3 ? { reads } : undefined), { what: 'a third read', intervalMs: 1 }),
    ).resolves.toEqual({ reads: 3 });
  });

  it('fails naming what was awaited and what it last saw', async () => {
    jest.useFakeTimers();
    const waiting = waitFor(async () => false, { what: 'the queue to empty', timeoutMs: 1000 });
    const failed = expect(waiting).rejects.toThrow(
      'Timed out after 1000 ms waiting for the queue to empty (last seen: false).',
    );
    await jest.advanceTimersByTimeAsync(1100);
    await failed;
  });
});

import { BatchQueue } from './batch-queue.ts';

/** A run function whose batches the test finishes by hand. */
function controlled() {
  const batches: { items: number[]; finish: () => void; fail: (error: Error) => void }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, finish: () => resolve(items.map((item) => `r${item}`)), fail: reject });
    });
  return { batches, run };
}

/** Lets scheduled batches start (a batch starts on a later turn of the event loop). */
async function turn(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('BatchQueue', () => {
  it('sends the items added together as one batch and answers each its own result', async () => {
    const { batches, run } = controlled();
    const queue = new BatchQueue(run, { maxSize: 10, maxInFlight: 1 });
    const results = [queue.add(1), queue.add(2), queue.add(3)];
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2, 3]]);
    batches[0]!.finish();
    await expect(Promise.all(results)).resolves.toEqual(['r1', 'r2', 'r3']);
  });

  it('gathers what arrives while a batch runs into the next one, never more than maxSize', async () => {
    const { batches, run } = controlled();
    const queue = new BatchQueue(run, { maxSize: 2, maxInFlight: 1 });
    const first = queue.add(1);
    await turn();
    const later = [queue.add(2), queue.add(3), queue.add(4)];
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1]]);
    batches[0]!.finish();
    await first;
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2, 3]]);
    batches[1]!.finish();
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2, 3], [4]]);
    batches[2]!.finish();
    await expect(Promise.all(later)).resolves.toEqual(['r2', 'r3', 'r4']);
  });

  it('runs up to maxInFlight batches at once', async () => {
    const { batches, run } = controlled();
    const queue = new BatchQueue(run, { maxSize: 1, maxInFlight: 2 });
    const results = [queue.add(1), queue.add(2), queue.add(3)];
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2]]);
    batches[1]!.finish();
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2], [3]]);
    batches[0]!.finish();
    batches[2]!.finish();
    await expect(Promise.all(results)).resolves.toEqual(['r1', 'r2', 'r3']);
  });

  it('rejects every item of a failed batch and carries on with the next', async () => {
    const { batches, run } = controlled();
    const queue = new BatchQueue(run, { maxSize: 10, maxInFlight: 1 });
    const failed = [queue.add(1), queue.add(2)];
    await turn();
    const next = queue.add(3);
    batches[0]!.fail(new Error('connection lost'));
    await expect(failed[0]).rejects.toThrow('connection lost');
    await expect(failed[1]).rejects.toThrow('connection lost');
    await turn();
    batches[1]!.finish();
    await expect(next).resolves.toBe('r3');
  });

  it('rejects the batch when the run answers the wrong number of results', async () => {
    const queue = new BatchQueue((items: number[]) => Promise.resolve(items.slice(1)), { maxSize: 10, maxInFlight: 1 });
    await expect(Promise.all([queue.add(1), queue.add(2)])).rejects.toThrow('a batch of 2 answered 1 results');
  });

  it('with splitOnFailure, runs each item of a failed batch again alone, so only the broken one fails', async () => {
    const seen: number[][] = [];
    const run = async (items: number[]) => {
      seen.push(items);
      if (items.includes(2)) throw new Error('item 2 is broken');
      return items.map((item) => `r${item}`);
    };
    const queue = new BatchQueue(run, { maxSize: 10, maxInFlight: 1, splitOnFailure: true });
    const results = await Promise.allSettled([queue.add(1), queue.add(2), queue.add(3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'r1',
      'item 2 is broken',
      'r3',
    ]);
    expect(seen).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  describe('with lingerMs', () => {
    // The linger's timer is jest's; the next turn (setImmediate) stays real, as turn() needs it.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
    afterEach(() => jest.useRealTimers());

    it('holds a batch smaller than maxSize for that long, and starts it with what arrived meanwhile', async () => {
      const { batches, run } = controlled();
      const queue = new BatchQueue(run, { maxSize: 10, maxInFlight: 1, lingerMs: 50 });
      const results = [queue.add(1)];
      await turn();
      results.push(queue.add(2));
      jest.advanceTimersByTime(49);
      await turn();
      expect(batches).toEqual([]);
      jest.advanceTimersByTime(1);
      await turn();
      expect(batches.map((batch) => batch.items)).toEqual([[1, 2]]);
      batches[0]!.finish();
      await expect(Promise.all(results)).resolves.toEqual(['r1', 'r2']);
    });

    it('starts a batch at once when it reaches maxSize, so a full load never waits', async () => {
      const { batches, run } = controlled();
      const queue = new BatchQueue(run, { maxSize: 2, maxInFlight: 1, lingerMs: 60_000 });
      const results = [queue.add(1)];
      await turn();
      expect(batches).toEqual([]);
      results.push(queue.add(2), queue.add(3));
      await turn();
      expect(batches.map((batch) => batch.items)).toEqual([[1, 2]]);
      batches[0]!.finish();
      await turn();
      // What is left is a batch smaller than maxSize again: it lingers.
      expect(batches).toHaveLength(1);
      jest.advanceTimersByTime(60_000);
      await turn();
      expect(batches.map((batch) => batch.items)).toEqual([[1, 2], [3]]);
      batches[1]!.finish();
      await expect(Promise.all(results)).resolves.toEqual(['r1', 'r2', 'r3']);
    });
  });
});

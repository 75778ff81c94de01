import { DecodePool, DecodeTimeout } from './decode-pool.ts';

/** A task the test ends by hand; `started` resolves once the pool has started it. */
function gate() {
  let markStarted!: () => void;
  let finish!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const task = async () => {
    markStarted();
    await finished;
    return 'done';
  };
  return { task, started, finish };
}

const pool = (options: Partial<DecodePool['options']> = {}) =>
  new DecodePool({ concurrency: 2, memoryBytes: 100, maxQueue: 2, timeoutMs: 60_000, ...options });

describe('DecodePool', () => {
  it('runs at most `concurrency` tasks; the others wait and start in arrival order', async () => {
    const decodes = pool();
    const [a, b, c] = [gate(), gate(), gate()];
    const order: string[] = [];
    const runs = [
      decodes.run(0, a.task),
      decodes.run(0, b.task),
      decodes.run(0, async () => (order.push('c'), c.task())),
    ];
    await Promise.all([a.started, b.started]);
    expect(decodes.stats).toEqual({ running: 2, waiting: 1, bytesInUse: 0 });
    b.finish();
    await c.started;
    expect(order).toEqual(['c']);
    a.finish();
    c.finish();
    expect(await Promise.all(runs)).toEqual(['done', 'done', 'done']);
    expect(decodes.stats).toEqual({ running: 0, waiting: 0, bytesInUse: 0 });
  });

  it('keeps the estimated memory of running tasks within its budget', async () => {
    const decodes = pool({ concurrency: 4 });
    const [big, other] = [gate(), gate()];
    const first = decodes.run(70, big.task);
    await big.started;
    const second = decodes.run(40, other.task);
    expect(decodes.stats).toEqual({ running: 1, waiting: 1, bytesInUse: 70 });
    big.finish();
    await other.started;
    expect(decodes.stats).toEqual({ running: 1, waiting: 0, bytesInUse: 40 });
    other.finish();
    await Promise.all([first, second]);
    await expect(decodes.run(101, async () => 'never')).rejects.toBeInstanceOf(RangeError);
  });

  it('refuses a task past its queue with a 503 and Retry-After, running nothing of it', async () => {
    const decodes = pool({ concurrency: 1, maxQueue: 1 });
    const [running, queued] = [gate(), gate()];
    const runs = [decodes.run(0, running.task), decodes.run(0, queued.task)];
    await running.started;
    let ran = false;
    await expect(decodes.run(0, async () => void (ran = true))).rejects.toMatchObject({
      code: 'service_unavailable',
      status: 503,
      retryable: true,
      headers: { 'Retry-After': '5' },
    });
    expect(ran).toBe(false);
    running.finish();
    queued.finish();
    await Promise.all(runs);
  });

  it('aborts a task at its deadline and frees its slot only once the task has stopped', async () => {
    const decodes = pool({ concurrency: 1, timeoutMs: 20 });
    let stop!: () => void;
    let markAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (markAborted = resolve));
    const slow = decodes.run(
      10,
      (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            stop = () => reject(signal.reason);
            markAborted();
          }),
        ),
    );
    const failure = slow.catch((error: unknown) => error);
    const next = gate();
    const after = decodes.run(0, next.task);
    await aborted;
    // Aborted but still winding down (as libvips does): the slot and its memory stay taken.
    expect(decodes.stats).toEqual({ running: 1, waiting: 1, bytesInUse: 10 });
    stop();
    expect(await failure).toBeInstanceOf(DecodeTimeout);
    await next.started;
    next.finish();
    expect(await after).toBe('done');
  });
});

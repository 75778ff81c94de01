import { EndpointGate } from './endpoint-gate.ts';

describe('EndpointGate', () => {
  it('admits up to the limit, queues up to maxWaiting, refuses the rest, per endpoint', async () => {
    const gate = new EndpointGate(2, 1);
    const first = await gate.enter('slow')!;
    await gate.enter('slow')!;
    const waiting = gate.enter('slow');
    expect(waiting).toBeDefined();
    expect(gate.enter('slow')).toBeUndefined();
    // Another endpoint is not affected by the busy one.
    expect(gate.enter('fast')).toBeDefined();
    let admitted = false;
    void waiting!.then(() => (admitted = true));
    await Promise.resolve();
    expect(admitted).toBe(false);
    first();
    first(); // a second release of the same slot is ignored
    await new Promise((resolve) => setImmediate(resolve));
    expect(admitted).toBe(true);
    expect(gate.inFlight('slow')).toBe(2);
  });

  describe('enterOrSpill (the fan-out)', () => {
    afterEach(() => jest.useRealTimers());

    it('queues past the backlog while the endpoint answers quickly; such a waiter gives up after its patience', async () => {
      jest.useFakeTimers();
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 1, patienceMs: 1000 };
      const first = (await gate.enterOrSpill('fast', options))!;
      const queued = gate.enterOrSpill('fast', options)!;
      const extra = gate.enterOrSpill('fast', options);
      expect(extra).toBeDefined();
      first();
      const second = await queued;
      expect(second).toBeDefined();
      jest.advanceTimersByTime(1000);
      await expect(extra).resolves.toBeUndefined();
      // The give-up left the lane consistent: the next release frees the slot for a newcomer.
      second!();
      expect(gate.inFlight('fast')).toBe(0);
    });

    it('a waiter granted a slot in time keeps it (its give-up timer is cleared)', async () => {
      jest.useFakeTimers();
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 0, patienceMs: 1000 };
      const first = (await gate.enterOrSpill('fast', options))!;
      const extra = gate.enterOrSpill('fast', options)!;
      first();
      const granted = await extra;
      jest.advanceTimersByTime(5000);
      expect(granted).toBeDefined();
      expect(gate.inFlight('fast')).toBe(1);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('admits no extra waiter once a slot has been held past the patience (a hanging receiver)', async () => {
      jest.useFakeTimers();
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 1, patienceMs: 1000 };
      await gate.enterOrSpill('slow', options);
      expect(gate.enterOrSpill('slow', options)).toBeDefined();
      jest.advanceTimersByTime(1000);
      expect(gate.enterOrSpill('slow', options)).toBeUndefined();
      // The backlog proper still queues nothing more, and other endpoints are unaffected.
      expect(gate.enterOrSpill('other', options)).toBeDefined();
    });
  });
});

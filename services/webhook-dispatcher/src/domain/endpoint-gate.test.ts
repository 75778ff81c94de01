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

  // Real timers with a short patience: jest's fake timers patch the process shared by the worker, and
  // a later test file in the same worker (the outbox relay's LISTEN connection) then hung.
  describe('enterOrSpill (the fan-out)', () => {
    const patienceMs = 50;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('queues past the backlog while the endpoint answers quickly; such a waiter gives up after its patience', async () => {
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 1, patienceMs };
      const first = (await gate.enterOrSpill('fast', options))!;
      const queued = gate.enterOrSpill('fast', options)!;
      const extra = gate.enterOrSpill('fast', options);
      expect(extra).toBeDefined();
      first();
      const second = await queued;
      expect(second).toBeDefined();
      await expect(extra).resolves.toBeUndefined();
      // The give-up left the lane consistent: the next release empties it.
      second!();
      expect(gate.inFlight('fast')).toBe(0);
    });

    it('a waiter granted a slot in time keeps it', async () => {
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 0, patienceMs };
      const first = (await gate.enterOrSpill('fast', options))!;
      const extra = gate.enterOrSpill('fast', options)!;
      first();
      const granted = await extra;
      await sleep(patienceMs * 2);
      expect(granted).toBeDefined();
      expect(gate.inFlight('fast')).toBe(1);
      granted!();
      expect(gate.inFlight('fast')).toBe(0);
    });

    it('admits no extra waiter once a slot has been held past the patience (a hanging receiver)', async () => {
      const gate = new EndpointGate(1, 0);
      const options = { backlog: 1, patienceMs };
      const held = (await gate.enterOrSpill('slow', options))!;
      const queued = gate.enterOrSpill('slow', options);
      expect(queued).toBeDefined();
      await sleep(patienceMs + 10);
      expect(gate.enterOrSpill('slow', options)).toBeUndefined();
      // Other endpoints are unaffected.
      const other = await gate.enterOrSpill('other', options);
      expect(other).toBeDefined();
      other!();
      held();
      (await queued!)!();
      expect(gate.inFlight('slow')).toBe(0);
    });
  });
});

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

  it('lets a caller allow more waiters than the default, still up to its own bound', () => {
    const gate = new EndpointGate(1, 0);
    expect(gate.enter('busy')).toBeDefined();
    expect(gate.enter('busy')).toBeUndefined();
    expect(gate.enter('busy', 2)).toBeDefined();
    expect(gate.enter('busy', 2)).toBeDefined();
    expect(gate.enter('busy', 2)).toBeUndefined();
  });
});

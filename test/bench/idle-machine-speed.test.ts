import { idleMachineSpeed } from '../../bench/support/cpu-speed.ts';

/** The soak's reading of the machine alone, before its system starts and after it stops. */
describe('idleMachineSpeed', () => {
  it("gives the medians of the probe's fixed compute and of its memory reads", async () => {
    const speed = await idleMachineSpeed(2);
    // About 60-75 ms and 150-350 ns on this machine's cores: only their being measured is asserted.
    expect(speed.cpuMs).toBeGreaterThan(1);
    expect(speed.memNs).toBeGreaterThan(1);
    expect(Number.isFinite(speed.cpuMs + speed.memNs)).toBe(true);
  });
});

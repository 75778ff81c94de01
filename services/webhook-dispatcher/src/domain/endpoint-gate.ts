export type Release = () => void;

interface Lane {
  active: number;
  waiting: (() => void)[];
}

/**
 * Fairness between endpoints (issue 9): at most `limit` attempts in flight per endpoint, and at most
 * `maxWaiting` more waiting for a slot. Past that `enter` answers undefined and the caller hands the
 * delivery back to the broker for later, so a receiver that hangs for the whole timeout holds at most
 * `limit + maxWaiting` of the process's prefetch and every other endpoint keeps the rest. A caller
 * with a larger prefetch (the fan-out) may allow more waiters, sized to its own prefetch.
 */
export class EndpointGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly limit: number, private readonly maxWaiting: number) {}

  enter(endpointId: string, maxWaiting = this.maxWaiting): Promise<Release> | undefined {
    let lane = this.lanes.get(endpointId);
    if (lane === undefined) {
      lane = { active: 0, waiting: [] };
      this.lanes.set(endpointId, lane);
    }
    const owned = lane;
    const release = this.releaser(endpointId, owned);
    if (owned.active < this.limit) {
      owned.active += 1;
      return Promise.resolve(release);
    }
    if (owned.waiting.length >= maxWaiting) return undefined;
    // The slot is handed over by release(): `active` stays the same.
    return new Promise<Release>((resolve) => owned.waiting.push(() => resolve(release)));
  }

  inFlight(endpointId: string): number {
    return this.lanes.get(endpointId)?.active ?? 0;
  }

  private releaser(endpointId: string, lane: Lane): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = lane.waiting.shift();
      if (next !== undefined) return next();
      lane.active -= 1;
      if (lane.active === 0) this.lanes.delete(endpointId);
    };
  }
}

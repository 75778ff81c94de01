export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

interface Lane {
  /** Slots in use, by slot number, with when each was granted (the age of the oldest tells a hanging receiver). */
  active: Map<number, number>;
  waiting: Waiter[];
}

export interface SpillOptions {
  /** Waiters admitted whatever the endpoint's speed (as `maxWaiting` for `enter`). */
  backlog: number;
  /**
   * More waiters are admitted while no slot of the endpoint has been held this long, and each gives
   * up after this long (its delivery then goes through the broker).
   */
  patienceMs: number;
}

/**
 * Fairness between endpoints: at most `limit` attempts in flight per endpoint, and at most
 * `maxWaiting` more waiting for a slot. Past that `enter` answers undefined and the caller hands the
 * delivery back to the broker for later, so a receiver that hangs for the whole timeout holds at most
 * `limit + maxWaiting` of the process's prefetch and every other endpoint keeps the rest.
 *
 * The fan-out (`enterOrSpill`) may also queue past its backlog while the endpoint answers quickly: a
 * burst of events to one fast endpoint then waits a few milliseconds in memory instead of paying a
 * command and a claim per delivery (that spill-over halved the benchmark). Those extra waiters give up
 * after `patienceMs`, and none are admitted once a slot has been held that long, so a receiver that
 * starts hanging holds the extra part of the prefetch for at most `patienceMs`.
 */
export class EndpointGate {
  private readonly lanes = new Map<string, Lane>();
  private slots = 0;

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  enter(endpointId: string): Promise<Release> | undefined {
    const lane = this.lane(endpointId);
    if (lane.active.size < this.limit) return Promise.resolve(this.grant(endpointId, lane));
    if (lane.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<Release>((resolve) => lane.waiting.push({ grant: resolve }));
  }

  /**
   * A slot now or later; undefined now when the endpoint is slow and its backlog full, or undefined
   * later when an extra waiter ran out of patience. Either way the caller sends the delivery through
   * the broker.
   */
  enterOrSpill(endpointId: string, options: SpillOptions): Promise<Release | undefined> | undefined {
    const lane = this.lane(endpointId);
    if (lane.active.size < this.limit) return Promise.resolve(this.grant(endpointId, lane));
    if (lane.waiting.length < options.backlog)
      return new Promise<Release>((resolve) => lane.waiting.push({ grant: resolve }));
    if (this.oldestSlotAgeMs(lane) >= options.patienceMs) {
      this.dropIfIdle(endpointId, lane);
      return undefined;
    }
    return new Promise<Release | undefined>((resolve) => {
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        const index = lane.waiting.indexOf(waiter);
        if (index >= 0) lane.waiting.splice(index, 1);
        resolve(undefined);
      }, options.patienceMs);
      lane.waiting.push(waiter);
    });
  }

  inFlight(endpointId: string): number {
    return this.lanes.get(endpointId)?.active.size ?? 0;
  }

  private lane(endpointId: string): Lane {
    let lane = this.lanes.get(endpointId);
    if (lane === undefined) {
      lane = { active: new Map(), waiting: [] };
      this.lanes.set(endpointId, lane);
    }
    return lane;
  }

  private oldestSlotAgeMs(lane: Lane): number {
    let oldest = Infinity;
    for (const grantedAt of lane.active.values()) oldest = Math.min(oldest, grantedAt);
    return oldest === Infinity ? 0 : Date.now() - oldest;
  }

  private dropIfIdle(endpointId: string, lane: Lane): void {
    if (lane.active.size === 0 && lane.waiting.length === 0 && this.lanes.get(endpointId) === lane)
      this.lanes.delete(endpointId);
  }

  /** A slot; its release hands the slot straight to the next waiter, if any. */
  private grant(endpointId: string, lane: Lane): Release {
    this.slots += 1;
    const slot = this.slots;
    lane.active.set(slot, Date.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.active.delete(slot);
      const next = lane.waiting.shift();
      if (next !== undefined) return next.grant(this.grant(endpointId, lane));
      this.dropIfIdle(endpointId, lane);
    };
  }
}

import type { Release } from './endpoint-gate.ts';
import type { OrgShares } from './org-shares.ts';

/**
 * Fairness between organizations: at most `limit` attempts of one organization in flight (or waiting
 * for their endpoint's slot) in this process, whatever the number of its endpoints, and with `shares`
 * at most this process's share of the organization's limit across all processes (OrgShares; callers
 * `prepare` the share before entering). A refused attempt goes back to the broker, so an organization
 * whose many endpoints hang holds its limit of the deployment and every other organization keeps the
 * rest. Never waits: the caller decides.
 */
export class OrgGate {
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly shares?: OrgShares,
  ) {}

  /** A place now, or undefined when the organization is at its limit. Releasing twice is harmless. */
  tryEnter(orgId: string): Release | undefined {
    const held = this.inFlight.get(orgId) ?? 0;
    if (held >= this.limit) return undefined;
    if (this.shares !== undefined && held >= this.shares.slots(orgId)) {
      this.shares.wantMore(orgId);
      return undefined;
    }
    this.inFlight.set(orgId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(orgId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(orgId);
      else this.inFlight.set(orgId, left);
    };
  }

  held(orgId: string): number {
    return this.inFlight.get(orgId) ?? 0;
  }

  /** Asks for this process's share of these organizations where it holds none (one statement). */
  prepare(orgIds: readonly string[]): Promise<void> {
    return this.shares?.prepare(orgIds) ?? Promise.resolve();
  }
}

/** One release for a place in both gates: the organization's is given back with the endpoint's. */
export function releasingBoth(endpoint: Release, org: Release): Release {
  return () => {
    endpoint();
    org();
  };
}

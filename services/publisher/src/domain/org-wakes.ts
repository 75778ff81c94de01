import { BatchQueue, type RawSql } from '@svc/db';
import type { Logger } from '@svc/logger';
import { wakeWaitingDeliveries, type WokenDelivery } from '../data/org-waiting.ts';

/** Organizations woken by one round at most; one round at a time (a round never fails). */
const ROUNDS = { maxSize: 100, maxInFlight: 1 } as const;

export interface OrgWakesDeps {
  db: RawSql;
  logger: Logger;
  /** DELIVERY_ORG_CONCURRENCY: an organization's slots, counted across every publisher process. */
  limit: number;
  /** How long a woken delivery holds its slot before its claim (its mark), the lease's length. */
  forMs: number;
  /** Runs the organization's woken deliveries, or hands them to a process that delivers. */
  onWoken: (orgId: string, woken: WokenDelivery[]) => void | Promise<void>;
}

/**
 * Wakes asked for by organization, one statement per organization for every ask made while the
 * previous round ran: a round starts after each of its asks, so it sees every wait committed before
 * them, as a wake of its own would. A claim that finds its organization busy sets its whole group
 * waiting at once, and each of those asked for a wake of its own: 1.2 wake statements per accepted
 * job in the accept benchmark (docs/performance.md, "Accepted into the line").
 * Never fails: a wake that fails leaves its deliveries to the sweeper, which wakes waiting
 * deliveries of organizations with free slots on every pass.
 */
export class OrgWakes {
  private readonly rounds: BatchQueue<string, undefined>;
  /** Asks whose round has not ended: a stop waits for them before the pool they use closes. */
  private readonly asked = new Set<Promise<undefined>>();
  private stopped = false;

  constructor(private readonly deps: OrgWakesDeps) {
    this.rounds = new BatchQueue((orgIds) => this.round(orgIds), ROUNDS);
  }

  /** Wakes up to one more of the organization's waiting deliveries, if it has a free slot. */
  async ask(orgId: string): Promise<void> {
    if (this.stopped) return;
    const round = this.rounds.add(orgId);
    this.asked.add(round);
    try {
      await round;
    } finally {
      this.asked.delete(round);
    }
  }

  /**
   * Wakes nobody from now on (a delivery woken while stopping would hold its slot with nobody to run
   * it), then waits for the round already running, whose statement and hand-off use the pool and the
   * broker the shutdown closes next.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.asked);
  }

  /** Up to as many of an organization's waiting deliveries as asks, no more than its free slots, as that many wakes of one each would. */
  private async round(orgIds: string[]): Promise<undefined[]> {
    const asks = new Map<string, number>();
    for (const orgId of orgIds) asks.set(orgId, (asks.get(orgId) ?? 0) + 1);
    await Promise.all(
      [...asks].map(async ([orgId, most]) => {
        if (this.stopped) return;
        try {
          await this.deps.onWoken(
            orgId,
            await wakeWaitingDeliveries(this.deps.db, orgId, this.deps.limit, most, this.deps.forMs),
          );
        } catch (error) {
          this.deps.logger.warn(
            { err: error, org_id: orgId },
            'waking a delivery waiting for a slot failed; the sweeper will',
          );
        }
      }),
    );
    return orgIds.map(() => undefined);
  }
}

import { randomUUID } from 'node:crypto';
import type { Logger } from '@svc/logger';
import type { OrgSharesRepository } from '../data/org-shares.repository.ts';

export interface OrgSharesOptions {
  /** An organization's attempts in flight across all processes (WEBHOOK_ORG_CONCURRENCY). */
  limit: number;
  /** How long a share lives unless renewed; renewed (or given back) every third of it. */
  leaseMs: number;
  logger: Logger;
}

interface Share {
  slots: number;
  /** Used since the last renewal: renewed then; otherwise given back. */
  used: boolean;
  /** When more was last asked for (at most once a second per organization). */
  askedAt: number;
}

/** How often a process at its share asks again for more of an organization's limit. */
const ASK_AGAIN_MS = 1000;

/**
 * This process's share of each organization's attempts in flight, so the limit holds across every
 * dispatcher process: the shares of the live processes add up to at most `limit` (taken under the
 * organization's advisory lock, OrgSharesRepository.reserve). A share is asked for the first time an
 * organization shows up (one statement for a whole batch of events), renewed while in use and given
 * back once idle for a lease third; a process that dies frees its shares when their lease ends. A
 * process at its share asks again now and then, and gets what the others left.
 */
export class OrgShares {
  private readonly holder = randomUUID();
  private readonly shares = new Map<string, Share>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly repository: OrgSharesRepository,
    private readonly options: OrgSharesOptions,
  ) {}

  /** This process's share of the organization now (0 until one was granted). */
  slots(orgId: string): number {
    const share = this.shares.get(orgId);
    if (share === undefined) return 0;
    share.used = true;
    return share.slots;
  }

  /** Asks, in one statement, for a share of each organization this process holds none of. */
  async prepare(orgIds: readonly string[]): Promise<void> {
    const missing = [...new Set(orgIds)].filter((orgId) => !this.shares.has(orgId));
    if (missing.length > 0) await this.ask(missing);
  }

  /** At its share: asks again in the background (throttled), for what the other processes left. */
  wantMore(orgId: string): void {
    const share = this.shares.get(orgId);
    if (share === undefined || share.slots >= this.options.limit || Date.now() - share.askedAt < ASK_AGAIN_MS) return;
    share.askedAt = Date.now();
    this.ask([orgId]).catch((error: unknown) =>
      this.options.logger.warn(
        { err: error },
        "could not ask for a larger share of an organization's webhook attempts",
      ),
    );
  }

  /** Renews the shares in use (`busy`: attempts of the organization in flight here) every lease third. */
  start(busy: (orgId: string) => boolean): void {
    this.timer = setInterval(
      () => {
        this.renewing ??= this.renew(busy)
          .catch((error: unknown) =>
            this.options.logger.error({ err: error }, "could not renew the shares of organizations' webhook attempts"),
          )
          .finally(() => {
            this.renewing = undefined;
          });
      },
      Math.max(100, Math.floor(this.options.leaseMs / 3)),
    );
    this.timer.unref();
  }

  /** Gives every share back (at shutdown, once no attempt runs). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    const held = [...this.shares.keys()];
    this.shares.clear();
    await this.repository.release(held, this.holder);
  }

  private async ask(orgIds: string[]): Promise<void> {
    const granted = await this.repository.reserve(orgIds, this.holder, this.options.limit, this.options.leaseMs);
    const now = Date.now();
    for (const row of granted) this.shares.set(row.org_id, { slots: row.slots, used: true, askedAt: now });
  }

  private async renew(busy: (orgId: string) => boolean): Promise<void> {
    const used: string[] = [];
    const idle: string[] = [];
    for (const [orgId, share] of this.shares) {
      (share.used || busy(orgId) ? used : idle).push(orgId);
      share.used = false;
    }
    for (const orgId of idle) this.shares.delete(orgId);
    await this.repository.renew(used, this.holder, this.options.leaseMs);
    await this.repository.release(idle, this.holder);
  }
}

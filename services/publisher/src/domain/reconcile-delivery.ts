import type { RawSql } from '@svc/db';
import type { Logger } from '@svc/logger';
import { isProviderError, type Credentials, type Network, type Providers, type PublishResult } from '@svc/providers';
import { postIdsTakenNear } from '../data/delivery-attempt.ts';

export type Reconciliation =
  /** The attempt's post exists. */
  | { kind: 'found'; result: PublishResult }
  /** The network's read covered the attempt's window and the post is not there: posting again cannot duplicate it. */
  | { kind: 'absent' }
  /** Still processing on the network, or the lookup failed for now: look again later. */
  | { kind: 'wait'; reason: string }
  /** The network cannot be asked (no read permission, no read API for it): report outcome_unknown. */
  | { kind: 'unknown'; reason: string };

export interface ReconcileTarget {
  id: string;
  orgId: string;
  accountId: string;
  provider: string;
  /** When the uncertain attempt began. */
  since: Date;
  handle: string | null;
  /** A thread's later part: the part it replies to, which the post looked for must answer. */
  inReplyTo?: string | undefined;
}

export interface ReconcileDeps {
  db: RawSql;
  providers: Providers;
  logger: Logger;
}

/**
 * Asks the network whether an uncertain attempt's post exists: through the handle the
 * network gave on the attempt when there is one, else by looking for a post of this account created
 * since the attempt began with the same text. Ids already recorded for other deliveries of the account
 * are excluded, so two deliveries of the same text never claim one post.
 */
export async function reconcileDelivery(
  deps: ReconcileDeps,
  target: ReconcileTarget,
  credentials: Credentials,
  text: string,
  mediaCount: number,
): Promise<Reconciliation> {
  const network = target.provider as Network;
  const taken = await postIdsTakenNear(deps.db, target);
  try {
    const found = await deps.providers[network].lookup.find({
      credentials,
      text,
      mediaCount,
      since: target.since,
      handle: target.handle ?? undefined,
      excludeIds: taken,
      ...(target.inReplyTo === undefined ? {} : { inReplyTo: target.inReplyTo }),
    });
    if (found.status === 'found') return { kind: 'found', result: found.result };
    if (found.status === 'absent') return { kind: 'absent' };
    return { kind: 'wait', reason: 'the network is still processing the post' };
  } catch (error) {
    if (!isProviderError(error)) {
      deps.logger.error({ err: error, delivery_id: target.id }, 'unexpected failure while looking a post up');
      return { kind: 'wait', reason: 'the lookup failed unexpectedly' };
    }
    const reason = `the lookup failed (${error.kind}: ${error.networkMessage})`;
    return error.retryable || error.kind === 'auth_expired' ? { kind: 'wait', reason } : { kind: 'unknown', reason };
  }
}

import { accountStateChanged, type Handlers } from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { AccountReplicasRepository } from '../data/account-replicas.repository.ts';
import type { CredentialsCache } from '../domain/credentials-cache.ts';

export const accountMessages = [accountStateChanged] as const;

/**
 * Keeps the replica of accounts the accept path reads, and drops the account's token the deliveries
 * reuse (any change may be a revoke). Idempotent by the event's version (a redelivered or overtaken
 * event is a no-op; dropping a token twice costs one RPC), so no inbox is needed.
 */
export function accountStateHandlers(
  replica: AccountReplicasRepository,
  credentials: Pick<CredentialsCache, 'forget'>,
): Handlers<typeof accountMessages> {
  return {
    'account.state_changed.v1': async (env) => {
      if (env.org_id === null) throw new AppError('validation_error', 'account.state_changed names no organization.');
      const { account_id, provider, handle, health, rule_extras, deleted, version } = env.payload;
      credentials.forget(env.org_id, account_id);
      await replica.apply({
        accountId: account_id,
        orgId: env.org_id,
        provider,
        handle,
        health,
        ruleExtras: rule_extras,
        deleted,
        version,
      });
    },
  };
}

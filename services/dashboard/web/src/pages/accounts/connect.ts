import { api } from '../../api/client.ts';
import { handoffTarget } from './handoff.ts';
import type { Network } from './networks.ts';

/**
 * Starts an OAuth connect (a new account, a reconnect, or through one of the organization's own
 * apps) and sends the browser to the API's hand-off page, then the network's consent; the API's
 * callback brings it back to Accounts (OAUTH_SUCCESS_REDIRECT). Throws, and goes nowhere, when the
 * API gave no hand-off link.
 */
export async function connect(provider: Network, oauthAppId?: string): Promise<void> {
  const started = await api.accounts.oauthStart(provider, oauthAppId === undefined ? {} : { oauth_app_id: oauthAppId });
  window.location.assign(handoffTarget(started));
}

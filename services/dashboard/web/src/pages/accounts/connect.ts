import { api } from '../../api/client.ts';
import type { Network } from './networks.ts';

/** Sends the browser to the network's consent page; the API's callback brings it back to Accounts. */
export async function connect(provider: Network, oauthAppId?: string): Promise<void> {
  const { authorize_url } = await api.accounts.oauthStart(
    provider,
    oauthAppId === undefined ? {} : { oauth_app_id: oauthAppId },
  );
  window.location.assign(authorize_url);
}

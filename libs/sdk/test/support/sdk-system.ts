// The whole system (test/support/system-harness.ts) with SDK clients on its real port: one with an
// API key, one with a dashboard JWT, both of one organization.
import { uniqueName } from '@svc/testing';
import { createClient, type ClientOptions, type SvcClient } from '@svc/sdk';
import { testProviders } from '../../../providers/test/support/sandbox.ts';
import { startSystem, type ServiceName, type SystemHarness } from '../../../../test/support/system-harness.ts';

export interface SdkSystem {
  system: SystemHarness;
  baseUrl: string;
  orgId: string;
  apiKey: string;
  token: string;
  /** A client with the API key. */
  client: SvcClient;
  /** A client with the dashboard JWT (API keys, webhooks, stats). */
  dashboard: SvcClient;
}

export async function startSdkSystem(
  services: ServiceName[],
  env: Record<string, string> = {},
  clientOptions: Partial<ClientOptions> = {},
): Promise<SdkSystem> {
  const system = await startSystem({ services, env });
  const orgId = uniqueName('org');
  const apiKey = await system.apiKey(orgId);
  const token = await system.token(orgId);
  const baseUrl = system.env.MEDIA_PUBLIC_BASE_URL!;
  return {
    system,
    baseUrl,
    orgId,
    apiKey,
    token,
    client: createClient({ baseUrl, apiKey, ...clientOptions }),
    dashboard: createClient({ baseUrl, token, ...clientOptions }),
  };
}

/** Connects a BYOK account through the SDK (the sandbox accepts unknown tokens as BYOK tokens). */
export async function connectAccount(sdk: SdkSystem, network: 'x' | 'linkedin' | 'facebook' = 'x'): Promise<string> {
  const token = `${uniqueName('tok')}-${network}`;
  const profile = await testProviders(sdk.system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })[
    network
  ].profile.fetch({
    accessToken: token,
  });
  const account = await sdk.client.accounts.create({
    provider: network,
    platform_account_id: profile.platformAccountId,
    credentials: { access_token: token },
  });
  return account.id;
}

/** At least 60 s ahead, as scheduled posts must be. */
export const inOneDay = () => new Date(Date.now() + 24 * 3600_000).toISOString();

import { randomUUID } from 'node:crypto';
import type { Vault } from '@svc/crypto';
import { AppError, notFound } from '@svc/errors';
import type { LinkedInAuthorType, Network, OAuthApp } from '@svc/providers';
import type { OAuthAppRow, OAuthAppsRepository } from '../data/oauth-apps.repository.ts';
import { isUuid, sealedFor } from './account-view.ts';
import { defaultScopes } from './default-scopes.ts';

export interface DefaultApp {
  clientId: string;
  clientSecret: string;
}

export interface OAuthAppView {
  id: string;
  provider: Network;
  name: string;
  client_id: string;
  redirect_uri: string;
  scopes: string[];
}

/** BYOK OAuth apps, and the choice between an organization's own app and the service's default one. */
export class OAuthApps {
  constructor(
    private readonly repository: OAuthAppsRepository,
    private readonly vault: Vault,
    private readonly publicBaseUrl: string,
    private readonly defaults: Partial<Record<Network, DefaultApp>>,
  ) {}

  redirectUri(provider: Network): string {
    return `${this.publicBaseUrl.replace(/\/$/, '')}/v1/oauth/${provider}/callback`;
  }

  private view(row: OAuthAppRow): OAuthAppView {
    const provider = row.provider as Network;
    return {
      id: row.id,
      provider,
      name: row.name,
      client_id: row.clientId,
      redirect_uri: this.redirectUri(provider),
      scopes: row.scopes.length > 0 ? row.scopes : defaultScopes(provider, undefined),
    };
  }

  async list(orgId: string, provider?: Network): Promise<OAuthAppView[]> {
    return (await this.repository.list(orgId, provider)).map((row) => this.view(row));
  }

  async create(
    orgId: string,
    input: { provider: Network; name: string; client_id: string; client_secret: string; scopes?: string[] | undefined },
  ): Promise<OAuthAppView> {
    const id = randomUUID();
    const row = await this.repository.create({
      id,
      orgId,
      provider: input.provider,
      name: input.name,
      clientId: input.client_id,
      clientSecret: this.vault.encrypt(input.client_secret, sealedFor.clientSecret(orgId, id)),
      scopes: [...new Set(input.scopes ?? [])],
    });
    return this.view(row);
  }

  /**
   * The app to talk to the network with: the organization's own (by id) or the service default. Its
   * scopes are the app's own when set, else the defaults for what the connection publishes as.
   */
  async resolve(
    orgId: string,
    provider: Network,
    appId: string | null | undefined,
    authorType?: LinkedInAuthorType,
  ): Promise<OAuthApp> {
    if (appId !== null && appId !== undefined) {
      const row = isUuid(appId) ? await this.repository.find(orgId, appId) : null;
      if (row === null || row.provider !== provider) throw notFound(`The ${provider} OAuth app ${appId}`);
      const app = this.toProviderApp(row);
      return row.scopes.length > 0 ? app : { ...app, scopes: defaultScopes(provider, authorType) };
    }
    const fallback = this.defaults[provider];
    if (fallback === undefined) {
      throw new AppError(
        'validation_error',
        `No default ${provider} OAuth app is configured; register your own with POST /v1/oauth-apps and pass its id as oauth_app_id.`,
      );
    }
    return {
      clientId: fallback.clientId,
      clientSecret: fallback.clientSecret,
      redirectUri: this.redirectUri(provider),
      scopes: defaultScopes(provider, authorType),
    };
  }

  /** The app an existing connection was made with, for refreshing it (any organization's). */
  async forConnection(provider: Network, orgId: string, appId: string | null): Promise<OAuthApp | undefined> {
    try {
      return await this.resolve(orgId, provider, appId);
    } catch {
      return undefined;
    }
  }

  private toProviderApp(row: OAuthAppRow): OAuthApp {
    const provider = row.provider as Network;
    return {
      clientId: row.clientId,
      clientSecret: this.vault.decrypt(row.clientSecret, sealedFor.clientSecret(row.orgId, row.id)),
      redirectUri: this.redirectUri(provider),
      scopes: row.scopes.length > 0 ? row.scopes : defaultScopes(provider, undefined),
    };
  }
}

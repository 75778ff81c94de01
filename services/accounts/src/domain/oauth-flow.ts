import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { signToken, verifyToken, type Vault } from '@svc/crypto';
import { AppError } from '@svc/errors';
import type { Network, Providers } from '@svc/providers';
import type { OAuthFlowsRepository } from '../data/oauth-flows.repository.ts';
import { sealedFor } from './account-view.ts';
import type { ConnectAccount } from './connect-account.ts';
import type { OAuthApps } from './oauth-apps.ts';
import { credentialRejection } from './provider-failure.ts';

export interface OAuthFlowDeps {
  flows: OAuthFlowsRepository;
  apps: OAuthApps;
  providers: Providers;
  vault: Vault;
  connect: ConnectAccount;
  stateSecret: string;
  stateTtlSeconds: number;
}

const invalidState = (message: string) => new AppError('validation_error', message, { details: [{ path: '/query/state', message }] });

/**
 * OAuth connect (RFC 9700 practice): `state` is signed, names a stored single-use flow that binds the
 * organization, network, OAuth app and PKCE verifier, and expires in 10 minutes. The verifier never
 * leaves the service (stored encrypted); the callback needs no credential because the state is signed.
 */
export class OAuthFlow {
  constructor(private readonly deps: OAuthFlowDeps) {}

  async start(orgId: string, provider: Network, oauthAppId: string | undefined): Promise<{ authorize_url: string }> {
    const app = await this.deps.apps.resolve(orgId, provider, oauthAppId);
    const adapter = this.deps.providers[provider];
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.deps.stateTtlSeconds * 1000);
    const verifier = adapter.oauth.pkce === 'none' ? undefined : randomBytes(48).toString('base64url');
    await this.deps.flows.create({
      id,
      orgId,
      provider,
      oauthAppId: oauthAppId ?? null,
      codeVerifier: verifier === undefined ? null : this.deps.vault.encrypt(verifier, sealedFor.codeVerifier(id)),
      expiresAt,
    });
    const state = signToken({ f: id, p: provider, e: Math.floor(expiresAt.getTime() / 1000) }, this.deps.stateSecret);
    const codeChallenge = verifier === undefined ? undefined : createHash('sha256').update(verifier).digest('base64url');
    const { url } = adapter.oauth.authorizeUrl({ app, state, ...(codeChallenge === undefined ? {} : { codeChallenge }) });
    return { authorize_url: url };
  }

  async complete(input: { provider: Network; code?: string | undefined; state?: string | undefined; error?: string | undefined; error_description?: string | undefined }) {
    if (input.state === undefined || input.state === '') throw invalidState('The OAuth callback has no state parameter.');
    const claims = verifyToken(input.state, this.deps.stateSecret);
    if (claims === undefined || typeof claims.f !== 'string' || typeof claims.e !== 'number') throw invalidState('The OAuth state is invalid or has been tampered with.');
    if (claims.p !== input.provider) throw invalidState(`The OAuth state was issued for ${String(claims.p)}, not ${input.provider}.`);
    if (claims.e * 1000 < Date.now()) throw invalidState('The OAuth state has expired; start the connection again.');
    // Consumed before anything else, so a replayed or concurrent callback cannot connect twice.
    const flow = await this.deps.flows.consume(claims.f);
    if (flow === null) throw invalidState('The OAuth state has already been used or has expired; start the connection again.');
    if (input.error !== undefined) {
      const denied = input.error === 'access_denied' || input.error === 'user_denied' || input.error === 'user_cancelled';
      throw new AppError('validation_error', denied ? 'The user did not grant access on the network.' : `The network reported an authorization error: ${input.error_description ?? input.error}.`, {
        details: [{ path: '/query/error', message: input.error }],
      });
    }
    if (input.code === undefined || input.code === '') throw new AppError('validation_error', 'The OAuth callback has no authorization code.', { details: [{ path: '/query/code', message: 'is required' }] });

    const app = await this.deps.apps.resolve(flow.orgId, input.provider, flow.oauthAppId);
    const adapter = this.deps.providers[input.provider];
    const codeVerifier = flow.codeVerifier === null ? undefined : this.deps.vault.decrypt(flow.codeVerifier, sealedFor.codeVerifier(flow.id));
    let tokens;
    try {
      tokens = await adapter.oauth.exchangeCode({ app, code: input.code, ...(codeVerifier === undefined ? {} : { codeVerifier }) });
    } catch (error) {
      throw credentialRejection(error, 'the authorization code');
    }
    const { account, reconnected } = await this.deps.connect.connect({
      orgId: flow.orgId,
      provider: input.provider,
      connectionType: 'oauth',
      tokens,
      extras: tokens.extras ?? {},
      oauthAppId: flow.oauthAppId,
    });
    return { account_id: account.id, provider: input.provider, reconnected };
  }
}

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { signToken, verifyToken, type Vault } from '@svc/crypto';
import { AppError } from '@svc/errors';
import type { LinkedInAuthorType, Network, ProviderAdapter, Providers } from '@svc/providers';
import type { OAuthFlowsRepository } from '../data/oauth-flows.repository.ts';
import { sealedFor } from './account-view.ts';
import type { ConnectAccount, ConnectInput } from './connect-account.ts';
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

const invalidState = (message: string) =>
  new AppError('validation_error', message, { details: [{ path: '/query/state', message }] });

/** The cookie binding a flow to the browser that started it. */
export const flowCookieName = (flowId: string) => `svc_oauth_${flowId.replace(/-/g, '')}`;
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * Only the network's error code, and only if it looks like one: the callback is a link anyone can
 * craft, so nothing it carries is shown as text on our domain.
 */
function networkErrorCode(error: string): string {
  return /^[a-z0-9_.-]{1,64}$/i.test(error) ? error : 'unknown_error';
}

/**
 * OAuth connect (RFC 9700 practice): `state` is signed, names a stored single-use flow that binds the
 * organization, network, OAuth app and PKCE verifier, and expires in 10 minutes. The verifier never
 * leaves the service (stored encrypted); the callback needs no credential because the state is signed.
 */
export class OAuthFlow {
  constructor(private readonly deps: OAuthFlowDeps) {}

  async start(orgId: string, provider: Network, oauthAppId: string | undefined, authorType?: LinkedInAuthorType) {
    if (authorType !== undefined && provider !== 'linkedin') {
      throw new AppError('validation_error', 'author_type applies to LinkedIn only.', {
        details: [{ path: '/query/author_type', message: `is not used by ${provider}` }],
      });
    }
    const app = await this.deps.apps.resolve(orgId, provider, oauthAppId, authorType);
    const adapter = this.deps.providers[provider];
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.deps.stateTtlSeconds * 1000);
    const verifier = adapter.oauth.pkce === 'none' ? undefined : randomBytes(48).toString('base64url');
    const browserNonce = randomBytes(32).toString('base64url');
    await this.deps.flows.create({
      id,
      orgId,
      provider,
      oauthAppId: oauthAppId ?? null,
      codeVerifier:
        verifier === undefined ? null : this.deps.vault.encrypt(verifier, sealedFor.codeVerifier(orgId, id)),
      browserNonceHash: sha256(browserNonce).toString('hex'),
      authorType: authorType ?? null,
      expiresAt,
    });
    const state = signToken({ f: id, p: provider, e: Math.floor(expiresAt.getTime() / 1000) }, this.deps.stateSecret);
    const codeChallenge =
      verifier === undefined
        ? undefined
        : (adapter.oauth.codeChallengeOf?.(verifier) ?? createHash('sha256').update(verifier).digest('base64url'));
    const { url } = adapter.oauth.authorizeUrl({
      app,
      state,
      ...(codeChallenge === undefined ? {} : { codeChallenge }),
    });
    return {
      authorize_url: url,
      browser_cookie: { name: flowCookieName(id), value: browserNonce, max_age_seconds: this.deps.stateTtlSeconds },
    };
  }

  async complete(input: {
    provider: Network;
    code?: string | undefined;
    state?: string | undefined;
    error?: string | undefined;
    error_description?: string | undefined;
    browser_cookies?: Record<string, string> | undefined;
  }) {
    if (input.state === undefined || input.state === '')
      throw invalidState('The OAuth callback has no state parameter.');
    const claims = verifyToken(input.state, this.deps.stateSecret);
    if (claims === undefined || typeof claims.f !== 'string' || typeof claims.e !== 'number')
      throw invalidState('The OAuth state is invalid or has been tampered with.');
    if (claims.p !== input.provider)
      throw invalidState(`The OAuth state was issued for ${String(claims.p)}, not ${input.provider}.`);
    if (claims.e * 1000 < Date.now()) throw invalidState('The OAuth state has expired; start the connection again.');
    // Consumed before anything else, so a replayed or concurrent callback cannot connect twice.
    const flow = await this.deps.flows.consume(claims.f);
    if (flow === null)
      throw invalidState('The OAuth state has already been used or has expired; start the connection again.');
    this.assertSameBrowser(flow.id, flow.browserNonceHash, input.browser_cookies);
    if (input.error !== undefined) {
      const code = networkErrorCode(input.error);
      const denied = code === 'access_denied' || code === 'user_denied' || code === 'user_cancelled';
      throw new AppError(
        'validation_error',
        denied
          ? 'The user did not grant access on the network.'
          : 'The network refused the authorization; start the connection again.',
        {
          details: [{ path: '/query/error', message: code }],
        },
      );
    }
    if (input.code === undefined || input.code === '')
      throw new AppError('validation_error', 'The OAuth callback has no authorization code.', {
        details: [{ path: '/query/code', message: 'is required' }],
      });

    const authorType = flow.authorType === 'organization' ? 'organization' : undefined;
    const app = await this.deps.apps.resolve(flow.orgId, input.provider, flow.oauthAppId, authorType);
    const adapter = this.deps.providers[input.provider];
    const codeVerifier =
      flow.codeVerifier === null
        ? undefined
        : this.deps.vault.decrypt(flow.codeVerifier, sealedFor.codeVerifier(flow.orgId, flow.id));
    let tokens;
    try {
      tokens = await adapter.oauth.exchangeCode({
        app,
        code: input.code,
        ...(codeVerifier === undefined ? {} : { codeVerifier }),
      });
    } catch (error) {
      throw credentialRejection(error, 'the authorization code');
    }
    const base = {
      orgId: flow.orgId,
      provider: input.provider,
      connectionType: 'oauth' as const,
      tokens,
      oauthAppId: flow.oauthAppId,
    };
    if (authorType === 'organization' || adapter.authors?.replacesUser === true)
      return this.connectAuthors(base, adapter);
    const { account, reconnected } = await this.deps.connect.connect({ ...base, extras: tokens.extras ?? {} });
    return { account_id: account.id, provider: input.provider, reconnected };
  }

  /**
   * One authorization, every page it covers connected as its own account: the LinkedIn organization
   * pages the member administers (the member's token, with w_organization_social, acts for each),
   * or the Facebook Pages the user picked in Facebook's Login dialog (each with its own Page token).
   * docs/networks.md "Pages and organizations".
   */
  private async connectAuthors(base: Omit<ConnectInput, 'extras'>, adapter: ProviderAdapter) {
    let pages;
    try {
      pages = adapter.authors === undefined ? [] : await adapter.authors.list({ accessToken: base.tokens.accessToken });
    } catch (error) {
      throw credentialRejection(error, 'the access token');
    }
    if (pages.length === 0) {
      throw new AppError(
        'validation_error',
        base.provider === 'linkedin'
          ? 'The LinkedIn member administers no organization page; connect the member instead (author_type=member).'
          : `The ${base.provider} user gave access to no Page; connect again and pick at least one Page.`,
      );
    }
    const connected = [];
    for (const page of pages)
      connected.push(
        await this.deps.connect.connect({ ...base, extras: { ...(base.tokens.extras ?? {}), ...page.extras } }),
      );
    return {
      account_id: connected[0]!.account.id,
      provider: base.provider,
      reconnected: connected.every((item) => item.reconnected),
      account_ids: connected.map((item) => item.account.id),
    };
  }

  /**
   * The callback connects into the organization that started the flow, so it must come from the
   * browser that started it: a consented link forwarded to someone else would otherwise connect
   * their account into the sender's organization. The flow is consumed either way.
   */
  private assertSameBrowser(
    flowId: string,
    nonceHash: string | null,
    cookies: Record<string, string> | undefined,
  ): void {
    if (nonceHash === null) return;
    const nonce = cookies?.[flowCookieName(flowId)];
    const expected = Buffer.from(nonceHash, 'hex');
    if (nonce === undefined || !timingSafeEqual(sha256(nonce), expected)) {
      throw new AppError(
        'forbidden',
        'This connection was started in another browser; start it again from the dashboard in this browser.',
        {
          details: [{ path: '/cookie', message: 'the browser that started the connection must finish it' }],
        },
      );
    }
  }

  /** Removes flows that expired more than `graceMs` ago (used or not); they can never complete. */
  prune(graceMs: number): Promise<number> {
    return this.deps.flows.prune(new Date(Date.now() - graceMs));
  }
}

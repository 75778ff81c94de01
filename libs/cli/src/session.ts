import { createClient, SvcApiError, type SvcClient } from '@svc/sdk';
import { readConfig, writeConfig, type StoredConfig } from './config/config-file.ts';
import { resolveCredentials, type Credentials } from './config/credentials.ts';
import { OutcomeError, UsageError } from './errors.ts';

const USER_AGENT = 'svc-cli/0.1.0';

/**
 * Retries of the SDK (network errors, 429, 503) bounded for an interactive tool: a person waits at
 * most this long before a network error is reported (exit 3).
 */
const RETRY = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 4_000, maxElapsedMs: 10_000 };

/** The credentials of one run and the SDK clients made from them. */
export class Session {
  private constructor(
    readonly configFile: string,
    private stored: StoredConfig,
    readonly credentials: Credentials,
  ) {}

  static async open(configFile: string, env: Record<string, string | undefined>): Promise<Session> {
    const stored = await readConfig(configFile);
    return new Session(configFile, stored, resolveCredentials(env, stored, Date.now()));
  }

  get baseUrl(): string {
    return this.credentials.baseUrl;
  }

  /** A client with the API key (or, without one, the dashboard token): what most commands use. */
  api(): SvcClient {
    const { apiKey, token } = this.credentials;
    if (apiKey !== undefined) return this.client({ apiKey });
    if (token !== undefined) return this.client({ token });
    throw new UsageError('not logged in: run svc login (or svc login --dev), or set SVC_API_KEY');
  }

  /** Whether a dashboard token is at hand or can be had (`svc login --dev` stored its organization). */
  canAuthorizeDashboard(): boolean {
    return this.credentials.token !== undefined || this.credentials.devOrgId !== undefined;
  }

  /**
   * A client with a dashboard JWT, for what API keys may not do (webhooks, OAuth, API keys). After
   * `svc login --dev` an expired token is replaced by a fresh development token and stored.
   */
  async dashboard(): Promise<SvcClient> {
    if (this.credentials.token === undefined && this.credentials.devOrgId !== undefined) {
      const minted = await this.devToken(this.credentials.devOrgId);
      this.credentials.token = minted.token;
      await this.save({ token: minted.token, token_expires_at: minted.expires_at });
    }
    if (this.credentials.token === undefined)
      throw new UsageError(
        'this command needs a dashboard token: set SVC_TOKEN, or run svc login --dev against a development gateway',
      );
    return this.client({ token: this.credentials.token });
  }

  /** `POST /v1/dev/token`: a dashboard JWT from a gateway in development mode (404 in any other). */
  async devToken(orgId: string | undefined): Promise<{ token: string; org_id: string; expires_at: string }> {
    try {
      return await this.client({}).call('createDevToken', { body: orgId === undefined ? {} : { org_id: orgId } });
    } catch (error) {
      if (error instanceof SvcApiError && error.status === 404)
        throw new OutcomeError(
          `the gateway at ${this.baseUrl} is not in development mode: development tokens exist only there (request ${error.requestId ?? '-'})`,
        );
      throw error;
    }
  }

  /** Merges `patch` into the stored config and writes it (mode 0600). */
  async save(patch: StoredConfig): Promise<void> {
    this.stored = { ...this.stored, ...patch };
    await writeConfig(this.configFile, this.stored);
  }

  client(auth: { apiKey?: string; token?: string }): SvcClient {
    return createClient({ baseUrl: this.credentials.baseUrl, ...auth, userAgent: USER_AGENT, retry: RETRY });
  }
}

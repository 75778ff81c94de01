import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Network } from '@svc/providers';
import type { OAuthHandoffStore } from '../data/oauth-handoffs.store.ts';
import {
  confirmValueMatches,
  handoffCodeExpiry,
  handoffId,
  newHandoffCode,
  openHandoff,
  sealHandoff,
} from './oauth-handoff-code.ts';

/** What a hand-off link carries to the browser that opens it: everything `start` gave its caller. */
export interface HandoffRecord {
  org_id: string;
  /** The organization's display name, when the dashboard token named it. */
  org_name?: string;
  provider: Network;
  authorize_url: string;
  /** The cookie binding the flow to a browser (absent: the flow needs none). */
  flow_cookie?: { name: string; value: string };
  /** When the flow itself ends: the cookie's Max-Age counts to here. */
  flow_expires_at: string;
  created_at: string;
  expires_at: string;
}

/** A link as the pages see it: open (with its record), or why it is not. */
export type HandoffLookup =
  { status: 'open'; record: HandoffRecord } | { status: 'used' | 'expired' | 'unknown' | 'unconfirmed' };

export interface StartedFlow {
  orgId: string;
  orgName?: string | undefined;
  provider: Network;
  authorizeUrl: string;
  flowCookie?: { name: string; value: string; max_age_seconds: number } | undefined;
}

export interface OAuthHandoffsOptions {
  store: OAuthHandoffStore;
  ttlSeconds: number;
  /** The API's public address: links are made on it. */
  publicBaseUrl: string;
  logger: Logger;
}

/**
 * OAuth hand-off: a single-use link, valid for minutes, that lets a browser other than the caller of
 * `start` (the user's, when the CLI or the dashboard's server started the flow) receive the flow's
 * cookie and go on to the network's consent. docs/security.md, "OAuth account linking".
 */
export class OAuthHandoffs {
  constructor(private readonly options: OAuthHandoffsOptions) {}

  /**
   * Makes the link of a started flow. Undefined when storage is unreachable: the caller's own browser
   * can still complete the flow with the cookie `start` set, so `start` answers without a link.
   * Throws 429 when the organization already has its cap of outstanding links.
   */
  async create(flow: StartedFlow): Promise<{ url: string; expiresAt: Date } | undefined> {
    const now = Date.now();
    const flowExpiresAt = new Date(now + (flow.flowCookie?.max_age_seconds ?? this.options.ttlSeconds) * 1000);
    // Whole seconds, as the code carries it: the record and the code expire at the same instant.
    const expiresAt = new Date(
      Math.floor(Math.min(now + this.options.ttlSeconds * 1000, flowExpiresAt.getTime()) / 1000) * 1000,
    );
    const code = newHandoffCode(expiresAt);
    const record: HandoffRecord = {
      org_id: flow.orgId,
      ...(flow.orgName === undefined ? {} : { org_name: flow.orgName }),
      provider: flow.provider,
      authorize_url: flow.authorizeUrl,
      ...(flow.flowCookie === undefined
        ? {}
        : { flow_cookie: { name: flow.flowCookie.name, value: flow.flowCookie.value } }),
      flow_expires_at: flowExpiresAt.toISOString(),
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt.toISOString(),
    };
    let stored;
    try {
      stored = await this.options.store.create(flow.orgId, handoffId(code), sealHandoff(code, record), expiresAt);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'OAuth hand-off not stored; start answers without handoff_url');
      return undefined;
    }
    if (!stored.created) {
      const waitSeconds = Math.max(1, Math.ceil((stored.slotFreesAt.getTime() - now) / 1000));
      throw new AppError(
        'rate_limited',
        `This organization has too many unused connection links; use one, or retry in ${waitSeconds} s when the oldest expires.`,
        { retryable: true, headers: { 'Retry-After': String(waitSeconds) } },
      );
    }
    const base = this.options.publicBaseUrl.endsWith('/')
      ? this.options.publicBaseUrl
      : `${this.options.publicBaseUrl}/`;
    return { url: new URL(`v1/oauth/handoff/${code}`, base).toString(), expiresAt };
  }

  /** The link as its confirmation page shows it; nothing changes. */
  async view(code: string): Promise<HandoffLookup> {
    const expired = this.expired(code);
    if (expired !== undefined) return expired;
    return this.lookup(code, await this.options.store.peek(handoffId(code)));
  }

  /**
   * Uses the link, once: only for a browser that was shown its confirmation page (the cookie's nonce
   * and the form's value match), and only the first such request finds it open. A link already used
   * says so first, whoever asks (a reload of the page after Continue, or a second browser).
   */
  async take(
    code: string,
    confirmation: { nonce?: string | undefined; value?: string | undefined },
  ): Promise<HandoffLookup> {
    const current = await this.view(code);
    if (current.status !== 'open') return current;
    if (!confirmValueMatches(code, confirmation.nonce, confirmation.value)) return { status: 'unconfirmed' };
    const id = handoffId(code);
    const found = this.lookup(code, await this.options.store.take(id));
    if (found.status === 'open') await this.options.store.release(found.record.org_id, id);
    return found;
  }

  private expired(code: string): HandoffLookup | undefined {
    const expiry = handoffCodeExpiry(code);
    if (expiry === undefined) return { status: 'unknown' };
    return expiry.getTime() <= Date.now() ? { status: 'expired' } : undefined;
  }

  private lookup(code: string, stored: Awaited<ReturnType<OAuthHandoffStore['peek']>>): HandoffLookup {
    if (stored.state !== 'open') return { status: stored.state };
    // Sealed by this service with an authenticated cipher: what opens is a record it wrote.
    const record = openHandoff(code, stored.sealed) as HandoffRecord | undefined;
    return record === undefined ? { status: 'unknown' } : { status: 'open', record };
  }
}

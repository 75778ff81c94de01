import { type RequestHandler } from 'express';
import { faultGate, type FaultRenderer } from './http/fault-gate.ts';
import { fetchMedia, type FetchedMedia } from './media/fetch-media.ts';
import { SandboxState } from './state/sandbox-state.ts';
import { StripeAccount, type StripeSandboxOptions } from './stripe/stripe-account.ts';
import { type NetworkName } from './state/types.ts';

export interface SandboxOptions {
  /** Base URL the sandbox uses when it must hand out absolute URLs (upload URLs, redirects). */
  publicUrl: string;
  /** Lets the sandbox fetch media from loopback/private addresses (dev and tests). */
  allowPrivateUrls: boolean;
  state?: SandboxState;
  /** How long a `timeout` fault hangs; longer than any adapter timeout. Default 60 s. */
  timeoutFaultMs?: number;
  /** Status reads an async job (IG container, X media, TikTok publish, video) answers "in progress" before it is done. Default 1. */
  processingPolls?: number;
  /** Instagram's rolling 24 h publishing quota. Default 100 (docs/networks.md §1.4). */
  igQuotaTotal?: number;
  mediaFetchTimeoutMs?: number;
  maxMediaBytes?: number;
  /**
   * URL prefixes verified for the TikTok app: PULL_FROM_URL from anywhere else fails with
   * `url_ownership_unverified`, as on TikTok. Undefined: no check (sandbox tests not about it).
   */
  tiktokVerifiedPrefixes?: string[];
  /** The sandbox's Stripe (checkout, portal, webhooks); undefined: off, its routes say so. */
  stripe?: StripeSandboxOptions;
}

export interface SandboxContext {
  state: SandboxState;
  publicUrl: string;
  processingPolls: number;
  igQuotaTotal: number;
  tiktokVerifiedPrefixes: string[] | undefined;
  /** Null when the sandbox's Stripe is off. */
  stripe: StripeAccount | null;
  fetchMedia: (url: string) => Promise<FetchedMedia>;
  gate: (networks: readonly NetworkName[], render: FaultRenderer) => RequestHandler;
  /** How long a `timeout` fault hangs (for gates of their own, such as the scoped faults' gate). */
  timeoutFaultMs: number;
}

export function createContext(options: SandboxOptions): SandboxContext {
  const state = options.state ?? new SandboxState();
  const hangMs = options.timeoutFaultMs ?? 60_000;
  const fetchOptions = {
    allowPrivateUrls: options.allowPrivateUrls,
    timeoutMs: options.mediaFetchTimeoutMs ?? 10_000,
    maxBytes: options.maxMediaBytes ?? 512 * 1024 * 1024,
  };
  return {
    state,
    publicUrl: options.publicUrl.replace(/\/$/, ''),
    processingPolls: options.processingPolls ?? 1,
    igQuotaTotal: options.igQuotaTotal ?? 100,
    tiktokVerifiedPrefixes: options.tiktokVerifiedPrefixes,
    stripe:
      options.stripe === undefined ? null : new StripeAccount(options.publicUrl.replace(/\/$/, ''), options.stripe),
    fetchMedia: (url) => fetchMedia(url, fetchOptions),
    gate: (networks, render) => faultGate({ state, hangMs }, networks, render),
    timeoutFaultMs: hangMs,
  };
}

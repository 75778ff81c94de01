/** The five network names of the spec; Instagram lives under the `/facebook` prefix. */
export const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export type NetworkName = (typeof NETWORKS)[number];

/** Token families: Facebook and Instagram share Facebook Login and its tokens. */
export type TokenFamily = 'facebook' | 'x' | 'linkedin' | 'tiktok';

export const tokenFamilyOf = (network: NetworkName): TokenFamily => (network === 'instagram' ? 'facebook' : network);

/**
 * `quota_exhausted` answers with the network's daily or plan cap (X usage-capped, LinkedIn's daily
 * 429, Instagram 9/2207042, TikTok spam_risk_too_many_posts, Facebook 368), which a client must defer
 * rather than retry within minutes.
 */
export const FAULT_KINDS = [
  'rate_limit',
  'server_error',
  'timeout',
  'token_expired',
  'token_revoked',
  'duplicate',
  'quota_exhausted',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * The uncertain outcomes of docs/api-conventions.md, "Sandbox faults": they apply to the next calls
 * that create a post, which happens (the post exists and is readable) before the answer is lost or
 * delayed.
 */
export const OUTCOME_FAULT_KINDS = ['lost_response', 'slow_response'] as const;
export type OutcomeFaultKind = (typeof OUTCOME_FAULT_KINDS)[number];

export interface Fault {
  network: NetworkName;
  fault: FaultKind;
  /** Seconds until the rate limit resets, as the network's headers will say. */
  retryAfterSeconds: number;
}

export interface TokenRecord {
  family: TokenFamily;
  kind: 'access' | 'refresh';
  /** The user (or page) the token acts as. */
  subject: string;
  /** Revoking the root revokes every token derived from it (page tokens, refreshed pairs). */
  root: string;
  clientId: string;
  scopes: string[];
  issuedAt: number;
  /** Epoch ms; undefined = never expires (Facebook page tokens). */
  expiresAt: number | undefined;
  revoked: boolean;
  /** Refresh tokens that were already exchanged (X, TikTok rotate them). */
  used: boolean;
}

export interface AuthCode {
  family: TokenFamily;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  subject: string;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  expiresAt: number;
  used: boolean;
}

export interface MediaRef {
  url: string;
  kind: 'image' | 'video' | 'document';
  /** The alt text the network stored for this item, where it takes one. */
  alt_text?: string;
}

export interface RecordedPost {
  network: NetworkName;
  id: string;
  account: string;
  text: string;
  media: MediaRef[];
  options: Record<string, unknown>;
  url: string;
  created_at: string;
}

export type TokenCheck =
  { status: 'ok'; subject: string; record: TokenRecord | undefined } | { status: 'invalid' | 'expired' | 'revoked' };

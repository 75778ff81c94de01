import type { Readable } from 'node:stream';

/** The five networks of the spec, in the spec's order. */
export const networks = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export type Network = (typeof networks)[number];

export const isNetwork = (value: unknown): value is Network => networks.includes(value as Network);

/** Each network's name as people write it, for text shown to users. */
export const networkLabels: Record<Network, string> = {
  instagram: 'Instagram',
  facebook: 'Facebook',
  x: 'X',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
};

/** An OAuth app's settings, injected per call (BYOK apps differ per organization). */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string[];
}

export interface TokenSet {
  accessToken: string;
  /** Absent when the network gives none; when present, always store it (X and TikTok rotate). */
  refreshToken?: string;
  expiresAt?: Date;
  refreshExpiresAt?: Date;
  scopes?: string[];
  /** Network-specific identifiers the token response carries (TikTok `open_id`, LinkedIn `id_token`...). */
  extras?: Record<string, string>;
}

export type PkceRequirement = 'required' | 'optional' | 'none';

export interface AuthorizeUrlInput {
  app: OAuthApp;
  state: string;
  /** S256 challenge; required where `pkce` is `required` (X). */
  codeChallenge?: string;
}

export interface OAuthCapability {
  /** Whether the authorize URL needs a PKCE challenge and the exchange its verifier. */
  readonly pkce: PkceRequirement;
  /**
   * The S256 challenge for a verifier where the network departs from RFC 7636's base64url (TikTok:
   * hex); absent: base64url(SHA-256(verifier)).
   */
  codeChallengeOf?(verifier: string): string;
  authorizeUrl(input: AuthorizeUrlInput): { url: string; pkce: PkceRequirement };
  exchangeCode(input: { app: OAuthApp; code: string; codeVerifier?: string }): Promise<TokenSet>;
  /** Networks without refresh (Facebook Login) throw `ProviderError` kind `validation`. */
  refresh(input: { app: OAuthApp; refreshToken: string }): Promise<TokenSet>;
  revoke(input: { app: OAuthApp; token: string }): Promise<void>;
}

/** Network-specific identifiers stored with a connected account. */
export interface AccountExtras {
  page_id?: string;
  ig_user_id?: string;
  author_urn?: string;
  username?: string;
  [key: string]: string | undefined;
}

export interface Profile {
  platformAccountId: string;
  handle: string;
  displayName?: string;
  extras: AccountExtras;
  /**
   * The token to store for this account when it is not the one given (a Facebook Page token derived
   * from the user's): it does not expire and has no refresh token.
   */
  accessToken?: string;
}

export interface ProfileCapability {
  /** Validates the token against the network and returns the account it acts for. */
  fetch(input: { accessToken: string; extras?: AccountExtras }): Promise<Profile>;
}

export interface Credentials {
  accessToken: string;
  extras?: AccountExtras;
}

/** `document`: a PDF, posted only as a LinkedIn document post. */
export type MediaKind = 'image' | 'video' | 'document';

/** Inclusive byte range. */
export interface ByteSpan {
  start: number;
  end: number;
}

/**
 * Stored media the adapter can stream (the library's file): networks that take bytes read it from
 * storage by range, chunk by chunk, instead of downloading `url`; the type is the sniffed one.
 */
export interface MediaSource {
  contentType: string;
  sizeBytes: number;
  open(span?: ByteSpan): Promise<Readable>;
}

export interface MediaInput {
  /** Public URL of the file, for networks that pull (Instagram, Facebook, TikTok PULL_FROM_URL). */
  url: string;
  kind: MediaKind;
  /** A video's length when known (library media), for per-account limits such as TikTok's creator maximum. */
  durationMs?: number;
  /** A video's or image's displayed size in pixels when known (library media is measured), for kinds with a shape (a Facebook reel). */
  width?: number;
  height?: number;
  /** A document's pages when known (library media). */
  pageCount?: number;
  /** Present for library media; absent for a plain URL (then byte-upload networks download it, bounded). */
  source?: MediaSource;
  /** The request's `media_alt_text` for this item (rules/alt-text.ts says where each network takes it). */
  altText?: string;
}

export interface PublishInput {
  credentials: Credentials;
  text: string;
  media: MediaInput[];
  /** Network options, e.g. TikTok `privacy_level`; see each network's rules. */
  options?: Record<string, unknown>;
  /**
   * Called with a handle the network gives on the attempt before it completes (TikTok `publish_id`,
   * a Facebook video id): the caller stores it so a reconciliation can ask about that attempt first.
   */
  onHandle?: (handle: string) => Promise<void>;
  /**
   * The handle an earlier attempt of this delivery reported, given only once that attempt's post is
   * known not to exist (it was refused, or verifiably absent). X and LinkedIn reuse the media it
   * uploaded, still valid on the network, instead of uploading and waiting for processing again.
   */
  resume?: string | undefined;
  /**
   * The native id of the post this one answers (X threads: each part after the first replies to the
   * part before it). Only networks whose rules allow threads take it.
   */
  inReplyTo?: string | undefined;
}

export interface PublishResult {
  platformPostId: string;
  url: string;
}

export interface PublishCapability {
  post(input: PublishInput): Promise<PublishResult>;
}

export interface LookupInput {
  credentials: Credentials;
  /** The text the caller asked to publish; each adapter compares the form it sends. */
  text: string;
  mediaCount: number;
  /** When the uncertain attempt began: only posts created from then on (less clock skew) are candidates. */
  since: Date;
  /** The handle `onHandle` reported for that attempt, if any. */
  handle?: string | undefined;
  /** Native ids already recorded for other deliveries of this account: never claimed twice. */
  excludeIds: readonly string[];
  /** Set for a reply (a thread's later part): only posts answering this one are candidates. */
  inReplyTo?: string | undefined;
}

/**
 * found: the attempt's post exists (native id and URL); absent: the read covered the whole window and
 * the post is not there, so posting again cannot duplicate it; pending: the network is still
 * processing the attempt (ask again later). A lookup that cannot answer throws a `ProviderError`.
 */
export type LookupResult = { status: 'found'; result: PublishResult } | { status: 'absent' } | { status: 'pending' };

export interface LookupCapability {
  /** Finds the post of an attempt whose outcome is uncertain through the network's own read API. */
  find(input: LookupInput): Promise<LookupResult>;
}

export interface CommentInput {
  credentials: Credentials;
  /** The native id of the published post the comment goes under. */
  postId: string;
  text: string;
}

export interface CommentLookupInput extends CommentInput {
  /** When the uncertain attempt began (X finds its replies in the account's timeline from then on). */
  since: Date;
  /** Comment ids already recorded elsewhere: never claimed twice. */
  excludeIds: readonly string[];
}

/**
 * found: the comment exists under the post, written by the account, with the same text; absent: the
 * whole list was read and it is not there, so commenting again cannot duplicate it. A lookup that
 * cannot answer throws a `ProviderError`.
 */
export type CommentLookupResult = { status: 'found'; platformCommentId: string } | { status: 'absent' };

/**
 * A comment under a published post, written as the account (the first comment of a post): Graph's
 * `/{id}/comments`, LinkedIn's `socialActions/{urn}/comments`, a reply on X.
 */
export interface CommentCapability {
  /** Creates the comment; a lost or late answer is `uncertain`, like a post's create call. */
  create(input: CommentInput): Promise<{ platformCommentId: string }>;
  /** Finds a comment whose create call's outcome is uncertain, through the network's own listing. */
  find(input: CommentLookupInput): Promise<CommentLookupResult>;
}

/** Metric keys per network as in the interface spec's "Post analytics row". */
export type PostMetrics = Record<string, number>;

export interface ContentViolation {
  rule: string;
  message: string;
}

export interface ContentInput {
  text: string;
  media: MediaInput[];
  options?: Record<string, unknown>;
  /** The target account's stored identifiers, for limits that differ per account (X Premium). */
  account?: AccountExtras;
}

export interface ContentRules {
  network: Network;
  maxTextLength: number;
  requiresMedia: boolean;
  /** The kinds of post the adapter publishes today (`GET /v1/accounts/{id}/capabilities`). */
  postTypes: readonly string[];
  /** Media items one post holds at most, and of each kind (the same figures `check` applies). */
  maxMedia: number;
  maxPerKind: Readonly<Record<MediaKind, number>>;
  check(input: ContentInput): ContentViolation[];
}

/**
 * The entities one authorization can publish as besides the user (LinkedIn organization pages),
 * each connected as its own account.
 */
export interface AuthorsCapability {
  /** OAuth connects these instead of the user (Facebook Pages) rather than only when asked (LinkedIn organizations). */
  readonly replacesUser: boolean;
  list(input: { accessToken: string }): Promise<Profile[]>;
}

/** One adapter per network: capabilities as explicit objects (STYLE.md convention 11). */
export interface ProviderAdapter {
  readonly network: Network;
  readonly rules: ContentRules;
  readonly oauth: OAuthCapability;
  readonly profile: ProfileCapability;
  readonly publish: PublishCapability;
  readonly lookup: LookupCapability;
  /** Present where a connection may act for pages the user manages (LinkedIn organizations, Facebook Pages). */
  readonly authors?: AuthorsCapability;
  /** Present where a post can get a first comment (rules/post-features.ts says which networks). */
  readonly comments?: CommentCapability;
}

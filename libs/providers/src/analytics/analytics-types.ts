import { type NetworkClient } from '../http/network-client.ts';
import { type Credentials, type Network, type PostMetrics } from '../types.ts';

/**
 * What a network said about one post. `read` carries only metrics the network returned (never a
 * filler 0) and a warning for every spec key it could not give; `failed` is a per-post failure
 * (deleted, not visible) that does not stop the other posts of the call.
 */
export type PostReading =
  { status: 'read'; metrics: PostMetrics; warnings: string[] } | { status: 'failed'; message: string };

export interface AnalyticsBatch {
  /** One entry per requested id. */
  readings: Map<string, PostReading>;
  /**
   * Epoch ms before which the account should not be called again, when the network's rate-limit
   * headers say the window is used up (X `x-rate-limit-remaining: 0`).
   */
  pauseUntil?: number | undefined;
}

/**
 * The analytics capability of one network (STYLE.md 11: capabilities as explicit objects). `read`
 * takes any number of posts of one account and batches them the way the network allows (X 100 ids
 * a call, TikTok 20, LinkedIn organizations 20). A failure of a whole call (auth, rate limit,
 * transient) is thrown as a classified `ProviderError`; the caller decides per account.
 */
export interface PostAnalyticsCapability {
  readonly network: Network;
  read(input: { credentials: Credentials; platformPostIds: readonly string[] }): Promise<AnalyticsBatch>;
}

export const chunk = <T>(items: readonly T[], size: number): T[][] => {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
};

/** Reads an integer from a network value; anything else is "not given", never 0. */
export const integerOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : undefined;

/** What analytics capabilities are built from: a network client and a clock (no media, no polling). */
export interface AnalyticsDeps {
  client: NetworkClient;
  now: () => number;
}

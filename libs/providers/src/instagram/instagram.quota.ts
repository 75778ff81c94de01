import { ProviderError } from '../errors/provider-error.ts';
import { type GraphApi } from '../graph/graph-api.ts';

interface PublishingLimit {
  data?: { quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }[];
}

/** Resolution of the search for the reset: a quarter of an hour in at most 7 probes of a 24 h window. */
const RESOLUTION_S = 900;

export const QUOTA_CODE = '9/2207042';

/**
 * When the account may publish again. Instagram counts API-published posts over a rolling window
 * (`config.quota_duration`, 24 h) against `quota_total` and answers 9 / 2207042 past it, without a
 * reset time. `content_publishing_limit?since=` counts the posts published since a moment no older
 * than the window (developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/
 * ig-user/content_publishing_limit), so the earliest moment a slot frees is found by bisection:
 * the account is free at `now + o` once fewer than `quota_total` posts remain after `now + o - window`.
 * Undefined when the limit cannot be read: the caller then keeps its usual backoff.
 */
export async function quotaResetMs(
  api: GraphApi,
  igUserId: string,
  token: string,
  nowMs: number,
): Promise<number | undefined> {
  const usageSince = async (since: number | undefined) => {
    const limit = await api.get<PublishingLimit>(
      `/${igUserId}/content_publishing_limit`,
      { fields: 'quota_usage,config', since },
      token,
    );
    return limit.data?.[0];
  };
  try {
    const current = await usageSince(undefined);
    const total = current?.config?.quota_total;
    const window = current?.config?.quota_duration ?? 86_400;
    if (total === undefined || (current?.quota_usage ?? 0) < total) return undefined;
    const nowS = Math.floor(nowMs / 1000);
    let blocked = 0;
    let free = window;
    while (free - blocked > RESOLUTION_S) {
      const probe = Math.floor((blocked + free) / 2);
      const used = (await usageSince(nowS - window + probe))?.quota_usage ?? 0;
      if (used < total) free = probe;
      else blocked = probe;
    }
    return free * 1000;
  } catch {
    return undefined;
  }
}

/** The quota refusal again, now carrying when to come back (the publisher waits at least that long). */
export function deferredQuotaError(error: ProviderError, retryAfterMs: number | undefined): ProviderError {
  if (retryAfterMs === undefined) return error;
  return new ProviderError({
    network: error.network,
    kind: error.kind,
    status: error.status,
    networkCode: error.networkCode,
    networkMessage: error.networkMessage,
    retryAfterMs,
    uncertain: error.uncertain,
    cause: error,
  });
}

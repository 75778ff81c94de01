import twitterText from 'twitter-text';

/**
 * The length of a post's text as each network counts it: X by its weighted length (twitter-text,
 * the library the API's own check uses: URLs 23, CJK and emoji 2), LinkedIn in UTF-16 units, the
 * others in code points. The limit comes from the account's capabilities, never from a table here.
 */
export function textLength(network: string, text: string): number {
  if (network === 'x') return twitterText.parseTweet(text).weightedLength;
  if (network === 'linkedin') return text.length;
  return [...text].length;
}

export type CounterState = 'ok' | 'near' | 'over';

export interface Counter {
  network: string;
  length: number;
  limit: number | null;
  remaining: number | null;
  state: CounterState;
}

/** One counter: `near` in the last 10% of the limit, `over` past it; no limit known, always `ok`. */
export function counterFor(network: string, text: string, limit: number | null): Counter {
  const length = textLength(network, text);
  if (limit === null) return { network, length, limit, remaining: null, state: 'ok' };
  const remaining = limit - length;
  const state: CounterState =
    remaining < 0 ? 'over' : remaining <= Math.max(1, Math.floor(limit * 0.1)) ? 'near' : 'ok';
  return { network, length, limit, remaining, state };
}

/** The smallest limit among a network's chosen accounts (an X Premium account may allow more). */
export function limitsByNetwork(accounts: { provider: string; limit: number | null }[]): Map<string, number | null> {
  const limits = new Map<string, number | null>();
  for (const { provider, limit } of accounts) {
    const known = limits.get(provider);
    if (!limits.has(provider)) limits.set(provider, limit);
    else if (limit !== null)
      limits.set(provider, known === null || known === undefined ? limit : Math.min(known, limit));
  }
  return limits;
}

import twitterText from 'twitter-text';
import { type AccountExtras } from '../types.ts';

/**
 * X's weighted length, counted by X's own library (npm `twitter-text`, config v3; docs.x.com
 * fundamentals/counting-characters): text NFC-normalised; every URL counts 23, scheme-less domains
 * (`example.com`) included and trailing punctuation excluded; Latin and common punctuation weigh 1,
 * everything else (CJK, emoji) 2; an emoji sequence (ZWJ, skin tones, flags) counts once, as 2.
 * A hand-written regex counted only `http(s)://` URLs and let over-long posts through.
 */
export function xWeightedLength(text: string): number {
  return twitterText.parseTweet(text).weightedLength;
}

export const X_MAX_WEIGHTED_LENGTH = 280;

/**
 * X Premium subscribers (every tier: Basic, Premium, PremiumPlus) may post up to 25,000 characters
 * (help.x.com "About longer posts"); the API reports the tier as the user field `subscription_type`
 * (docs.x.com x-api/fundamentals/data-dictionary: `Basic | Premium | PremiumPlus | None`).
 */
export const X_PREMIUM_MAX_WEIGHTED_LENGTH = 25_000;
const PREMIUM_TIERS = new Set(['Basic', 'Premium', 'PremiumPlus']);

/**
 * An account's own limit: from what its profile said at connect (`extras.subscription_type`), else
 * the deployment's X_TEXT_LIMIT_DEFAULT recorded at connect (`extras.text_limit`), else 280.
 */
export function xTextLimit(account: AccountExtras | undefined): number {
  if (account?.subscription_type !== undefined)
    return PREMIUM_TIERS.has(account.subscription_type) ? X_PREMIUM_MAX_WEIGHTED_LENGTH : X_MAX_WEIGHTED_LENGTH;
  const configured = Number(account?.text_limit);
  return Number.isInteger(configured) && configured > 0 ? configured : X_MAX_WEIGHTED_LENGTH;
}

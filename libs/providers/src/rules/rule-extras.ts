import { CREATOR_EXTRA_KEYS } from '../tiktok/tiktok.creator.ts';
import { type AccountExtras } from '../types.ts';

/**
 * The stored account identifiers that content rules read (X's `subscription_type`, for the Premium
 * text limit; TikTok's creator_info as of connect). Only these travel to the publisher's accept-time
 * check, never all extras.
 */
const RULE_KEYS = ['subscription_type', 'text_limit', ...CREATOR_EXTRA_KEYS] as const;

export function ruleExtrasOf(
  extras: AccountExtras | Record<string, unknown> | null | undefined,
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of RULE_KEYS) {
    const value = extras?.[key];
    if (typeof value === 'string') picked[key] = value;
  }
  return picked;
}

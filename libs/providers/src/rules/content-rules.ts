import { facebookRules } from '../facebook/facebook.rules.ts';
import { instagramRules } from '../instagram/instagram.rules.ts';
import { linkedinRules } from '../linkedin/linkedin.rules.ts';
import { tiktokRules } from '../tiktok/tiktok.rules.ts';
import { type ContentInput, type ContentRules, type ContentViolation, type Network } from '../types.ts';
import { xRules } from '../x/x.rules.ts';

/**
 * Per-network content rules, usable by the gateway without any network call (docs/api-conventions.md,
 * "Per-network validation").
 */
export const contentRules: Readonly<Record<Network, ContentRules>> = {
  instagram: instagramRules,
  facebook: facebookRules,
  x: xRules,
  linkedin: linkedinRules,
  tiktok: tiktokRules,
};

export function checkContent(network: Network, input: ContentInput): ContentViolation[] {
  return contentRules[network].check({ ...input, options: input.options ?? {} });
}

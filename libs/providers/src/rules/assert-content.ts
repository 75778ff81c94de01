import { ProviderError } from '../errors/provider-error.ts';
import { type ContentRules, type PublishInput } from '../types.ts';

/** Content rules run before any network call; a violation fails as `validation` naming every rule. */
export function assertContent(rules: ContentRules, input: PublishInput): void {
  const violations = rules.check({
    text: input.text,
    media: input.media,
    options: input.options ?? {},
    ...(input.credentials.extras ? { account: input.credentials.extras } : {}),
  });
  if (violations.length === 0) return;
  throw new ProviderError({
    network: rules.network,
    kind: 'validation',
    networkCode: violations.map((item) => item.rule).join(','),
    networkMessage: violations.map((item) => item.message).join(' '),
  });
}

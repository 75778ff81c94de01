import { UsageError } from '../errors.ts';

/** ISO 8601 date and time with minutes, optional seconds and fraction, and a required zone. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * `--at` (or `--until`: `flag`) as the API's `scheduled_at`: a time with its zone (`2026-12-24T09:00+01:00`), sent as the
 * same instant in UTC with seconds (the API wants RFC 3339 date-times). A time without a zone is
 * refused rather than guessed.
 */
export function parseAt(value: string, flag = '--at'): string {
  if (!ISO_WITH_ZONE.test(value))
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not a date and time with a zone (e.g. 2026-12-24T09:00+01:00 or 2026-12-24T08:00Z)`,
    );
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new UsageError(`${flag} ${JSON.stringify(value)} is not a real date and time`);
  return new Date(time).toISOString();
}

/** `--to a,b --to c` as `[a, b, c]`. */
export function splitList(values: string[]): string[] {
  return values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

export const isUrl = (value: string) => /^https?:\/\//i.test(value);

export interface PostBodyInput {
  accountIds: string[];
  providers: string[];
  text: string;
  mediaIds: string[];
  mediaUrls: string[];
  scheduledAt: string | undefined;
  tiktokPrivacy: string;
  /** `media_alt_text`, already in the API's order (`media_ids`, then `media_urls`); empty: none. */
  altTexts?: string[];
  /** `post_type` per network, from `--post-type network=type`. */
  postTypes?: Record<string, string>;
}

/** `--post-type instagram=reel --post-type tiktok=draft` as `{instagram: 'reel', tiktok: 'draft'}`. */
export function parsePostTypes(values: string[]): Record<string, string> {
  const types: Record<string, string> = {};
  for (const value of values) {
    const match = /^([a-z]+)=([a-z_]+)$/.exec(value.trim());
    if (match === null)
      throw new UsageError(`--post-type ${JSON.stringify(value)} is not network=type (e.g. instagram=reel)`);
    types[match[1]!] = match[2]!;
  }
  return types;
}

/**
 * `--alt` texts given in `--media` order, put in the API's order: the files (uploaded first, sent as
 * `media_ids`), then the URLs. One per medium, or none at all.
 */
export function altTextsInApiOrder(media: string[], alts: string[]): string[] {
  if (alts.length === 0) return [];
  if (alts.length !== media.length)
    throw new UsageError(
      `--alt is given ${alts.length} times for ${media.length} media: give one per --media ("" for none)`,
    );
  const paired = media.map((item, index) => ({ url: isUrl(item), alt: alts[index]! }));
  return [...paired.filter((item) => !item.url), ...paired.filter((item) => item.url)].map((item) => item.alt);
}

/**
 * The `POST /v1/posts` body. TikTok requires a `privacy_level`: the CLI sends `--tiktok-privacy`
 * (default SELF_ONLY, which every creator may use) whenever a TikTok account is a target.
 */
export function postBody(input: PostBodyInput) {
  const options: Record<string, Record<string, string>> = {};
  for (const [network, postType] of Object.entries(input.postTypes ?? {})) options[network] = { post_type: postType };
  if (input.providers.includes('tiktok')) options.tiktok = { ...options.tiktok, privacy_level: input.tiktokPrivacy };
  return {
    account_ids: input.accountIds,
    text: input.text,
    ...(input.mediaIds.length > 0 ? { media_ids: input.mediaIds } : {}),
    ...(input.mediaUrls.length > 0 ? { media_urls: input.mediaUrls } : {}),
    ...((input.altTexts ?? []).length > 0 ? { media_alt_text: input.altTexts } : {}),
    ...(input.scheduledAt === undefined ? {} : { scheduled_at: input.scheduledAt }),
    ...(Object.keys(options).length > 0 ? { platform_options: options } : {}),
  };
}

/**
 * Where TikTok may pull from: the media library's public address, which serves every post's media
 * (media_urls are re-hosted there at accept) and is the one domain an operator verifies with TikTok
 * (unless TIKTOK_MEDIA_URL_VERIFIED=false), plus TIKTOK_VERIFIED_URL_PREFIXES (comma-separated).
 */
export function tiktokVerifiedPrefixes(
  config: { TIKTOK_VERIFIED_URL_PREFIXES: string; TIKTOK_MEDIA_URL_VERIFIED: boolean },
  mediaPublicBaseUrl: string | undefined,
): string[] {
  const configured = config.TIKTOK_VERIFIED_URL_PREFIXES;
  const extra = configured
    .split(',')
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== '');
  return !config.TIKTOK_MEDIA_URL_VERIFIED || mediaPublicBaseUrl === undefined || mediaPublicBaseUrl === ''
    ? extra
    : [`${mediaPublicBaseUrl.replace(/\/$/, '')}/media/`, ...extra];
}

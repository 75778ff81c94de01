import type { MediaInput } from '@svc/providers';

const VIDEO_EXTENSIONS = /\.(mp4|m4v|mov|webm)$/i;

/**
 * The kind of a media URL, decided by its path's extension (video: .mp4 .m4v .mov .webm; anything
 * else is an image). No request is made at accept time: a HEAD per URL would slow every accept and
 * reach out to user-given hosts before the job exists; the adapters check the real bytes.
 */
export function mediaOf(urls: readonly string[]): MediaInput[] {
  return urls.map((url) => {
    let path = url;
    try {
      path = new URL(url).pathname;
    } catch {
      // an invalid URL is reported by the content rules (media_url)
    }
    return { url, kind: VIDEO_EXTENSIONS.test(path) ? 'video' : 'image' };
  });
}

export interface LiAsset {
  urn: string;
  kind: 'image' | 'video' | 'document';
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  size: number;
  /** Upload parts by index: bytes received and the ETag answered. */
  parts: Map<number, { bytes: Buffer; etag: string }>;
  partCount: number;
  polls: number;
  failureReason: string | undefined;
}

/**
 * An asset read while PROCESSING moves on after `processingPolls` reads: to PROCESSING_FAILED when
 * its bytes were refused at upload, else AVAILABLE.
 */
export function advanceStatus(asset: LiAsset, processingPolls: number): LiAsset {
  if (asset.status === 'PROCESSING') {
    if (asset.polls >= processingPolls) asset.status = asset.failureReason ? 'PROCESSING_FAILED' : 'AVAILABLE';
    asset.polls += 1;
  }
  return asset;
}

export interface LiPost {
  urn: string;
  author: string;
  commentary: string;
  createdAt: number;
  /** The post's media as the Posts API returns it: one image, video or document (with its title), or several images. */
  content:
    | { media: { id: string; title?: string } }
    | { multiImage: { images: { id: string; altText?: string }[] } }
    | undefined;
}

export const LI_STORES = { assets: 'linkedin.assets', uploads: 'linkedin.uploads', posts: 'linkedin.posts' } as const;

/** Upload URL id -> the asset and part it fills. */
export interface LiUploadSlot {
  urn: string;
  part: number;
}

export const PART_BYTES = 4 * 1024 * 1024;
export const DUPLICATE_WINDOW_MS = 24 * 3_600_000;

const RESERVED = '\\|{}@[]()<>#*_~';

export interface RenderedCommentary {
  text: string;
  /** Hashtag elements (`#tag`, `{hashtag|\#|tag}`), as LinkedIn links them; escaped `\#tag` is plain text. */
  hashtags: string[];
  /** Mentioned URNs (`@[Name](urn:li:…)`). */
  mentions: string[];
}

const MENTION = /^@\[([^\]]*)\]\((urn:li:[a-zA-Z]+:[^)]+)\)/;
const HASHTAG_TEMPLATE = /^\{hashtag\|\\#\|([\p{L}\p{N}]+)\}/u;
const HASHTAG = /^#([\p{L}\p{N}]+)/u;

/**
 * Reads little-text-format commentary the way LinkedIn renders it (learn.microsoft.com linkedin
 * marketing community-management shares little-text-format): escapes are removed; a mention, a
 * hashtag `#tag` or a hashtag template becomes that element; and text after any other unescaped
 * reserved character is lost (docs/networks.md §4.2, §7.5).
 */
export function renderCommentary(commentary: string): RenderedCommentary {
  let text = '';
  const hashtags: string[] = [];
  const mentions: string[] = [];
  for (let i = 0; i < commentary.length; i += 1) {
    const char = commentary[i]!;
    if (char === '\\' && i + 1 < commentary.length && RESERVED.includes(commentary[i + 1]!)) {
      text += commentary[i + 1];
      i += 1;
      continue;
    }
    if (RESERVED.includes(char)) {
      const rest = commentary.slice(i);
      const mention = MENTION.exec(rest);
      const template = mention ? null : HASHTAG_TEMPLATE.exec(rest);
      const hashtag = mention || template ? null : HASHTAG.exec(rest);
      const element = mention ?? template ?? hashtag;
      if (!element) break;
      if (mention) {
        mentions.push(mention[2]!);
        text += mention[0];
      } else {
        hashtags.push(element[1]!);
        text += `#${element[1]!}`;
      }
      i += element[0].length - 1;
      continue;
    }
    text += char;
  }
  return { text, hashtags, mentions };
}

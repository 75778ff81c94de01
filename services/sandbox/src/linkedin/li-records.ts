export interface LiAsset {
  urn: string;
  kind: 'image' | 'video';
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  size: number;
  /** Upload parts by index: bytes received and the ETag answered. */
  parts: Map<number, { bytes: Buffer; etag: string }>;
  partCount: number;
  polls: number;
  failureReason: string | undefined;
}

export interface LiPost {
  urn: string;
  author: string;
  commentary: string;
  createdAt: number;
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

/**
 * Reads little-text-format commentary the way LinkedIn renders it: escapes are removed, and text
 * after the first unescaped reserved character is lost (networks.md §4.2, §7.5) - unless it starts a
 * mention `@[Name](urn)` or hashtag template, which the sandbox keeps as written.
 */
export function renderCommentary(commentary: string): string {
  let out = '';
  for (let i = 0; i < commentary.length; i += 1) {
    const char = commentary[i]!;
    if (char === '\\' && i + 1 < commentary.length && RESERVED.includes(commentary[i + 1]!)) {
      out += commentary[i + 1];
      i += 1;
      continue;
    }
    if (RESERVED.includes(char)) {
      const mention = /^@\[[^\]]*\]\(urn:li:[a-zA-Z]+:[^)]+\)/.exec(commentary.slice(i));
      if (mention) {
        out += mention[0];
        i += mention[0].length - 1;
        continue;
      }
      break;
    }
    out += char;
  }
  return out;
}

import { INSTAGRAM_KIND_LIMITS, INSTAGRAM_LIMITS } from '../instagram/instagram.rules.ts';
import { FACEBOOK_KIND_LIMITS, FACEBOOK_LIMITS } from '../facebook/facebook.rules.ts';
import { LINKEDIN_LIMITS } from '../linkedin/linkedin.rules.ts';
import { TIKTOK_LIMITS } from '../tiktok/tiktok.rules.ts';
import { type MediaKind, type Network } from '../types.ts';
import { X_LIMITS } from '../x/x.rules.ts';

/** What one kind of post holds, as `GET /v1/accounts/{id}/capabilities` announces it. */
export interface PostKindShape {
  mediaKinds: readonly MediaKind[];
  minMedia: number;
  maxMedia: number;
  /** A video's length bounds for this kind, in seconds, where the kind has its own. */
  videoSeconds?: readonly [number, number];
  /** A document's most pages and bytes, for kinds that hold one (LinkedIn `document`). */
  documentPages?: number;
  documentBytes?: number;
}

/**
 * Each network's kinds, from the same constants its rules check (instagram.rules.ts, tiktok.rules.ts...),
 * the default kind first.
 */
export const postKinds: Readonly<Record<Network, Readonly<Record<string, PostKindShape>>>> = {
  instagram: {
    feed: { mediaKinds: ['image', 'video'], minMedia: 1, maxMedia: INSTAGRAM_LIMITS.maxCarousel },
    reel: {
      mediaKinds: ['video'],
      minMedia: 1,
      maxMedia: 1,
      videoSeconds: [INSTAGRAM_KIND_LIMITS.reel.minSeconds, INSTAGRAM_KIND_LIMITS.reel.maxSeconds],
    },
    story: {
      mediaKinds: ['image', 'video'],
      minMedia: 1,
      maxMedia: 1,
      videoSeconds: [0, INSTAGRAM_KIND_LIMITS.story.maxSeconds],
    },
  },
  facebook: {
    feed: { mediaKinds: ['image', 'video'], minMedia: 0, maxMedia: FACEBOOK_LIMITS.maxImages },
    reel: {
      mediaKinds: ['video'],
      minMedia: 1,
      maxMedia: 1,
      videoSeconds: [FACEBOOK_KIND_LIMITS.reel.minSeconds, FACEBOOK_KIND_LIMITS.reel.maxSeconds],
    },
  },
  x: { post: { mediaKinds: ['image', 'video'], minMedia: 0, maxMedia: X_LIMITS.maxImages } },
  linkedin: {
    post: { mediaKinds: ['image', 'video'], minMedia: 0, maxMedia: LINKEDIN_LIMITS.maxImages },
    document: {
      mediaKinds: ['document'],
      minMedia: 1,
      maxMedia: 1,
      documentPages: LINKEDIN_LIMITS.maxDocumentPages,
      documentBytes: LINKEDIN_LIMITS.maxDocumentBytes,
    },
  },
  tiktok: {
    video: { mediaKinds: ['video'], minMedia: 1, maxMedia: 1 },
    photo: { mediaKinds: ['image'], minMedia: 1, maxMedia: TIKTOK_LIMITS.maxPhotos },
    draft: { mediaKinds: ['image', 'video'], minMedia: 1, maxMedia: TIKTOK_LIMITS.maxPhotos },
  },
};

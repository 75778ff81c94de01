import type { Static } from '@sinclair/typebox';
import type { ReplyOf, accountsRulesGet } from '@svc/contracts';
import { NETWORK_LIMITS, SUPPORTED_TYPES, kindOf, needsJpegRendition, type MediaLimits } from '@svc/media';
import { contentCapabilities } from '@svc/providers';
import type { AccountCapabilities } from '../openapi/capabilities.schemas.ts';

type Capabilities = Static<typeof AccountCapabilities>;

const range = (bounds: readonly [number, number]) => ({ min: bounds[0], max: bounds[1] });

/** PDFs, where the network takes documents (LinkedIn): held to the library's own limits too. */
function documentCapability(
  limits: (typeof NETWORK_LIMITS)[keyof typeof NETWORK_LIMITS],
  library: MediaLimits,
  maxCount: number,
): Partial<Capabilities['media']> {
  if (limits.documentTypes === undefined || limits.documentBytes === undefined) return {};
  return {
    document: {
      mime_types: [...limits.documentTypes],
      max_bytes: Math.min(limits.documentBytes, library.maxDocumentBytes ?? limits.documentBytes),
      max_count: maxCount,
      ...(limits.documentPages === undefined
        ? {}
        : { max_pages: Math.min(limits.documentPages, library.maxDocumentPages ?? limits.documentPages) }),
    },
  };
}

/**
 * What one account can post, derived from the rule tables validation applies: the content rules of
 * libs/providers with the account's rule extras, and the per-network media limits of libs/media held
 * to the media library's own (MEDIA_MAX_*), and the alt text and post-type tables of libs/providers.
 */
export function accountCapabilities(account: ReplyOf<typeof accountsRulesGet>, library: MediaLimits): Capabilities {
  const content = contentCapabilities(account.provider, account.rule_extras);
  const limits = NETWORK_LIMITS[account.provider];
  const accepted = (kind: 'image' | 'video') =>
    SUPPORTED_TYPES.filter(
      (type) =>
        kindOf(type) === kind &&
        ((kind === 'image' ? limits.imageTypes : limits.videoTypes).includes(type) ||
          (kind === 'image' && limits.jpegRenditionFixes && needsJpegRendition(type))),
    );
  const videoSeconds =
    limits.videoSeconds === undefined
      ? undefined
      : ([
          limits.videoSeconds[0],
          Math.min(limits.videoSeconds[1], content.maxVideoSeconds ?? Number.POSITIVE_INFINITY),
        ] as const);
  return {
    account_id: account.id,
    provider: account.provider,
    post_types: [...content.postTypes],
    post_type_rules: Object.fromEntries(
      Object.entries(content.postKinds).map(([type, shape]) => [
        type,
        {
          media_kinds: [...shape.mediaKinds],
          min_media: shape.minMedia,
          max_media: shape.maxMedia,
          ...(shape.videoSeconds === undefined ? {} : { duration_seconds: range(shape.videoSeconds) }),
          ...(shape.documentPages === undefined ? {} : { max_pages: shape.documentPages }),
          ...(shape.documentBytes === undefined
            ? {}
            : { max_bytes: Math.min(shape.documentBytes, library.maxDocumentBytes ?? shape.documentBytes) }),
        },
      ]),
    ),
    max_text_length: content.maxTextLength,
    max_media: content.maxMedia,
    media: {
      image: {
        mime_types: accepted('image'),
        max_bytes: Math.min(limits.imageBytes, library.maxImageBytes),
        max_count: content.maxPerKind.image,
        ...(limits.gifBytes === undefined ? {} : { gif_max_bytes: Math.min(limits.gifBytes, library.maxGifBytes) }),
        ...(limits.imageAspect === undefined ? {} : { aspect_ratio: range(limits.imageAspect) }),
        ...(limits.imageMaxPixels === undefined ? {} : { max_pixels: limits.imageMaxPixels }),
      },
      video: {
        mime_types: accepted('video'),
        max_bytes: Math.min(limits.videoBytes ?? library.maxVideoBytes, library.maxVideoBytes),
        max_count: content.maxPerKind.video,
        ...(limits.videoAspect === undefined ? {} : { aspect_ratio: range(limits.videoAspect) }),
        ...(videoSeconds === undefined ? {} : { duration_seconds: range(videoSeconds) }),
        ...(limits.videoSide === undefined ? {} : { side_px: range(limits.videoSide) }),
      },
      ...documentCapability(limits, library, content.maxPerKind.document),
    },
    first_comment: content.firstComment,
    threads: content.threads,
    alt_text: content.altText !== undefined,
    alt_text_max_length: content.altText?.maxLength ?? null,
    alt_text_media_kinds: [...(content.altText?.kinds ?? [])],
    scopes: account.scopes,
  };
}

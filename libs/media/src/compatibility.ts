import { needsJpegRendition, type MediaFacts, type SupportedType } from './facts.ts';

export const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export type MediaNetwork = (typeof NETWORKS)[number];

export type CompatibilityRule = 'format' | 'size' | 'dimensions' | 'aspect_ratio' | 'duration' | 'pages';

export interface NetworkCompatibility {
  ok: boolean;
  /** The first rule the file breaks, null when ok. */
  rule: CompatibilityRule | null;
  message: string | null;
}

export type Compatibility = Record<MediaNetwork, NetworkCompatibility>;

interface Limits {
  imageTypes: readonly SupportedType[];
  videoTypes: readonly SupportedType[];
  /** Types the network refuses but a JPEG rendition fixes (Instagram, TikTok photos). */
  jpegRenditionFixes: boolean;
  imageBytes: number;
  gifBytes?: number;
  videoBytes?: number;
  imageAspect?: [number, number];
  videoAspect?: [number, number];
  imageMaxPixels?: number;
  videoSide?: [number, number];
  videoSeconds?: [number, number];
  /** Document posts (LinkedIn only): the types, largest file and most pages. */
  documentTypes?: readonly SupportedType[];
  documentBytes?: number;
  documentPages?: number;
}

const MB = 1024 * 1024;

/**
 * Per-network media limits (docs/networks.md §1.4-§5.4, with their sources). Where they mark a
 * figure unverified, the documented figure is used and the doc names it.
 */
export const NETWORK_LIMITS: Record<MediaNetwork, Limits> = {
  instagram: {
    imageTypes: ['image/jpeg'],
    videoTypes: ['video/mp4', 'video/quicktime'],
    jpegRenditionFixes: true,
    imageBytes: 8 * MB,
    videoBytes: 300 * MB,
    imageAspect: [0.8, 1.91],
    videoSeconds: [3, 900],
  },
  facebook: {
    imageTypes: ['image/jpeg', 'image/png', 'image/gif'],
    videoTypes: ['video/mp4', 'video/quicktime'],
    jpegRenditionFixes: false,
    imageBytes: 4 * MB,
  },
  x: {
    imageTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
    videoTypes: ['video/mp4', 'video/quicktime'],
    jpegRenditionFixes: false,
    imageBytes: 5 * MB,
    gifBytes: 15 * MB,
    videoBytes: 512 * MB,
    videoAspect: [1 / 3, 3],
    videoSeconds: [0.5, 140],
  },
  linkedin: {
    imageTypes: ['image/jpeg', 'image/png', 'image/gif'],
    videoTypes: ['video/mp4'],
    jpegRenditionFixes: false,
    imageBytes: 36 * MB,
    videoBytes: 500 * MB,
    imageMaxPixels: 36_152_320,
    videoAspect: [1 / 2.4, 2.4],
    videoSeconds: [3, 1800],
    documentTypes: ['application/pdf'],
    documentBytes: 100 * MB,
    documentPages: 300,
  },
  tiktok: {
    imageTypes: ['image/jpeg', 'image/webp'],
    videoTypes: ['video/mp4', 'video/quicktime'],
    jpegRenditionFixes: true,
    imageBytes: 20 * MB,
    videoBytes: 4096 * MB,
    videoSide: [360, 4096],
    videoSeconds: [1, 600],
  },
};

const ok: NetworkCompatibility = { ok: true, rule: null, message: null };
const broken = (rule: CompatibilityRule, message: string): NetworkCompatibility => ({ ok: false, rule, message });
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

function checkDocument(limits: Limits, facts: Omit<MediaFacts, 'sha256'>): NetworkCompatibility {
  if (limits.documentTypes === undefined || !limits.documentTypes.includes(facts.contentType))
    return broken('format', `${facts.contentType} is not accepted (documents are posted to LinkedIn only)`);
  if (limits.documentBytes !== undefined && facts.sizeBytes > limits.documentBytes)
    return broken('size', `${mb(facts.sizeBytes)} is over the ${mb(limits.documentBytes)} limit for documents`);
  if (limits.documentPages !== undefined && facts.pageCount !== null && facts.pageCount > limits.documentPages)
    return broken('pages', `${facts.pageCount} pages is over the ${limits.documentPages}-page limit for documents`);
  return ok;
}

/** The file as the network would see it: PNG/WebP become their JPEG rendition where that fixes the format. */
function check(limits: Limits, facts: Omit<MediaFacts, 'sha256'>, renditionBytes: number | null): NetworkCompatibility {
  const { width, height, durationMs } = facts;
  const aspect = width !== null && height !== null && height > 0 ? width / height : null;
  if (facts.kind === 'document') return checkDocument(limits, facts);
  if (facts.kind === 'image') {
    const useRendition =
      !limits.imageTypes.includes(facts.contentType) &&
      limits.jpegRenditionFixes &&
      needsJpegRendition(facts.contentType) &&
      renditionBytes !== null;
    if (!limits.imageTypes.includes(facts.contentType) && !useRendition)
      return broken('format', `${facts.contentType} is not accepted (takes ${limits.imageTypes.join(', ')})`);
    const bytes = useRendition ? renditionBytes! : facts.sizeBytes;
    const max = facts.contentType === 'image/gif' ? (limits.gifBytes ?? limits.imageBytes) : limits.imageBytes;
    if (bytes > max)
      return broken(
        'size',
        `${mb(bytes)} is over the ${mb(max)} limit for ${facts.contentType === 'image/gif' ? 'GIFs' : 'images'}`,
      );
    if (
      limits.imageMaxPixels !== undefined &&
      width !== null &&
      height !== null &&
      width * height > limits.imageMaxPixels
    ) {
      return broken('dimensions', `${width}x${height} is over ${limits.imageMaxPixels} pixels`);
    }
    if (
      limits.imageAspect !== undefined &&
      aspect !== null &&
      (aspect < limits.imageAspect[0] - 0.005 || aspect > limits.imageAspect[1] + 0.005)
    ) {
      return broken(
        'aspect_ratio',
        `aspect ratio ${aspect.toFixed(2)} is outside ${limits.imageAspect[0]}-${limits.imageAspect[1]}`,
      );
    }
    return ok;
  }
  if (!limits.videoTypes.includes(facts.contentType))
    return broken('format', `${facts.contentType} is not accepted (takes ${limits.videoTypes.join(', ')})`);
  if (limits.videoBytes !== undefined && facts.sizeBytes > limits.videoBytes)
    return broken('size', `${mb(facts.sizeBytes)} is over the ${mb(limits.videoBytes)} limit for videos`);
  if (limits.videoSide !== undefined && width !== null && height !== null) {
    const [min, max] = limits.videoSide;
    if (Math.min(width, height) < min || Math.max(width, height) > max)
      return broken('dimensions', `${width}x${height} is outside ${min}-${max} px per side`);
  }
  if (
    limits.videoAspect !== undefined &&
    aspect !== null &&
    (aspect < limits.videoAspect[0] - 0.005 || aspect > limits.videoAspect[1] + 0.005)
  ) {
    return broken(
      'aspect_ratio',
      `aspect ratio ${aspect.toFixed(2)} is outside ${limits.videoAspect[0].toFixed(2)}-${limits.videoAspect[1].toFixed(2)}`,
    );
  }
  if (limits.videoSeconds !== undefined && durationMs !== null) {
    const [min, max] = limits.videoSeconds;
    if (durationMs < min * 1000 || durationMs > max * 1000)
      return broken('duration', `${(durationMs / 1000).toFixed(1)} s is outside ${min}-${max} s`);
  }
  return ok;
}

export function compatibilityOf(facts: Omit<MediaFacts, 'sha256'>, renditionBytes: number | null): Compatibility {
  return Object.fromEntries(
    NETWORKS.map((network) => [network, check(NETWORK_LIMITS[network], facts, renditionBytes)]),
  ) as Compatibility;
}

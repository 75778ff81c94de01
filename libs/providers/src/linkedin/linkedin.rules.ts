import { checkAltText } from '../rules/alt-text.ts';
import { postTypeOf } from '../rules/post-types.ts';
import { checkMediaUrls, documents, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentInput, type ContentRules, type ContentViolation } from '../types.ts';

/**
 * docs/networks.md §4.4: commentary 3,000 chars; 1 image or a multi-image post of 2-20; 1 video; no
 * mixing. A document post: one PDF of at most 100 MB and 300 pages (Documents API).
 */
export const LINKEDIN_LIMITS = {
  maxText: 3000,
  maxImages: 20,
  maxVideos: 1,
  maxDocumentBytes: 100 * 1024 * 1024,
  maxDocumentPages: 300,
} as const;

/** `post`: text, images or a video; `document`: one PDF (a carousel in the feed). */
export const LINKEDIN_POST_TYPES = ['post', 'document'] as const;

/** A document post: exactly one PDF and a `title` (LinkedIn shows it above the carousel). */
function documentViolations(input: ContentInput): ContentViolation[] {
  const found: ContentViolation[] = [];
  const pdfs = documents(input.media);
  if (pdfs.length !== 1 || input.media.length !== 1)
    found.push(violation('media_kind_mismatch', 'A LinkedIn document post holds exactly one PDF and no other media.'));
  const pages = pdfs[0]?.pageCount;
  if (pages !== undefined && pages > LINKEDIN_LIMITS.maxDocumentPages)
    found.push(
      violation(
        'max_pages',
        `A LinkedIn document holds at most ${LINKEDIN_LIMITS.maxDocumentPages} pages (this one ${pages}).`,
      ),
    );
  const title = input.options?.title;
  if (typeof title !== 'string' || title.trim() === '')
    found.push(
      violation(
        'document_title',
        'A LinkedIn document post needs platform_options.linkedin.title (shown above the document).',
      ),
    );
  return found;
}

export const linkedinRules: ContentRules = {
  network: 'linkedin',
  maxTextLength: LINKEDIN_LIMITS.maxText,
  requiresMedia: false,
  postTypes: LINKEDIN_POST_TYPES,
  maxMedia: LINKEDIN_LIMITS.maxImages,
  maxPerKind: { image: LINKEDIN_LIMITS.maxImages, video: LINKEDIN_LIMITS.maxVideos, document: 1 },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = postTypeOf('linkedin', input.options, LINKEDIN_POST_TYPES, 'post');
    found.push(...kind.violations);
    // LinkedIn counts UTF-16 code units like most Java services.
    if (input.text.length > LINKEDIN_LIMITS.maxText)
      found.push(violation('text_length', `LinkedIn posts are limited to ${LINKEDIN_LIMITS.maxText} characters.`));
    if (kind.postType === 'document') {
      found.push(...documentViolations(input));
    } else {
      if (input.text.trim() === '' && input.media.length === 0)
        found.push(violation('empty', 'A LinkedIn post needs text or media.'));
      const imageCount = images(input.media).length;
      const videoCount = videos(input.media).length;
      if (imageCount > LINKEDIN_LIMITS.maxImages)
        found.push(violation('media_count', `A LinkedIn post holds at most ${LINKEDIN_LIMITS.maxImages} images.`));
      if (videoCount > LINKEDIN_LIMITS.maxVideos)
        found.push(violation('media_count', 'A LinkedIn post holds at most one video.'));
      if (videoCount > 0 && imageCount > 0)
        found.push(violation('media_mix', 'A LinkedIn post cannot mix images and a video.'));
      if (documents(input.media).length > 0)
        found.push(violation('media_kind_mismatch', 'A PDF is posted to LinkedIn with post_type document, alone.'));
    }
    found.push(...checkAltText('linkedin', input.media, kind.postType));
    return found.concat(checkMediaUrls(input));
  },
};

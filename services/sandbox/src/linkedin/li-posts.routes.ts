import { json, type Response, type Router } from 'express';
import { markPostCreated } from '../http/outcome-faults.ts';
import { type SandboxContext } from '../context.ts';
import { numericId } from '../state/ids.ts';
import { liCallerOf, mayActAs, requireLiToken, requireVersion } from './li-auth.ts';
import { duplicatePost, liError, renderLinkedInFault } from './li-errors.ts';
import { DUPLICATE_WINDOW_MS, LI_STORES, renderCommentary, type LiAsset, type LiPost } from './li-records.ts';

const REQUIRED = ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState'] as const;
const MAX_COMMENTARY = 3000;
/** Posts API: `altText` of an image, at most 4,086 characters. */
const MAX_ALT_TEXT = 4086;

interface PostBody {
  author?: unknown;
  commentary?: unknown;
  visibility?: unknown;
  distribution?: unknown;
  lifecycleState?: unknown;
  content?: {
    media?: { id?: unknown; title?: unknown; altText?: unknown };
    multiImage?: { images?: { id?: unknown; altText?: unknown }[] };
  };
}

function unprocessable(res: Response, message: string): void {
  liError(res, 422, message);
}

/** Posts API (docs/networks.md §4.2): 201 Created, empty body, the URN in `x-restli-id`. */
export function registerLinkedInPosts(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);
  const assets = state.store<LiAsset>(LI_STORES.assets);
  const posts = state.store<LiPost>(LI_STORES.posts);

  router.post('/rest/posts', json({ limit: '1mb' }), gate, auth, version, (req, res) => {
    const body = (req.body ?? {}) as PostBody;
    const missing = REQUIRED.filter((field) => body[field] === undefined);
    if (missing.length > 0) {
      return unprocessable(
        res,
        missing
          .map((field) => `ERROR :: /${field} :: field is required but not found and has no default value`)
          .join('\n'),
      );
    }
    const caller = liCallerOf(res);
    const author = String(body.author);
    if (!mayActAs(caller, author)) {
      return liError(res, 403, 'Not enough permissions to access: POST /rest/posts', 'ACCESS_DENIED', 100);
    }
    const commentary = String(body.commentary);
    if (commentary.length > MAX_COMMENTARY)
      return unprocessable(
        res,
        `ERROR :: /commentary :: length ${commentary.length} exceeds the maximum of ${MAX_COMMENTARY}`,
      );
    const mediaIds = [
      ...(body.content?.media?.id !== undefined ? [String(body.content.media.id)] : []),
      ...(body.content?.multiImage?.images ?? []).map((image) => String(image.id)),
    ];
    const altTexts = [
      ...(body.content?.media?.id !== undefined ? [body.content.media.altText] : []),
      ...(body.content?.multiImage?.images ?? []).map((image) => image.altText),
    ];
    const badAlt = altTexts.findIndex(
      (altText) => altText !== undefined && (typeof altText !== 'string' || altText.length > MAX_ALT_TEXT),
    );
    if (badAlt >= 0)
      return unprocessable(
        res,
        `ERROR :: altText of media ${badAlt} :: must be a string of at most ${MAX_ALT_TEXT} characters`,
      );
    const multi = body.content?.multiImage?.images;
    if (multi && (multi.length < 2 || multi.length > 20))
      return unprocessable(res, 'ERROR :: /content/multiImage/images :: a multi-image post needs 2 to 20 images');
    const attached = mediaIds.map((id) => assets.get(id));
    const title = body.content?.media?.title;
    if (attached.some((asset) => asset?.kind === 'document')) {
      // A document is the post's only media and needs its title (shown above the carousel).
      if (body.content?.multiImage)
        return unprocessable(res, 'ERROR :: /content/multiImage :: a document cannot be part of a multi-image post');
      if (typeof title !== 'string' || title.trim() === '')
        return unprocessable(res, 'ERROR :: /content/media/title :: a document post requires a title');
    }
    for (const [index, asset] of attached.entries()) {
      if (!asset) return liError(res, 400, `Media ${mediaIds[index]} does not exist.`, 'ILLEGAL_ARGUMENT');
      if (
        asset.status !== 'AVAILABLE' &&
        !(asset.kind === 'image' && asset.status === 'PROCESSING' && !asset.failureReason)
      ) {
        return liError(res, 400, `Media ${asset.urn} is not available (status ${asset.status}).`, 'ILLEGAL_ARGUMENT');
      }
    }
    const { text, hashtags, mentions } = renderCommentary(commentary);
    const now = state.now();
    const duplicate = [...posts.values()].find(
      (post) =>
        post.author === author &&
        post.commentary === commentary &&
        commentary !== '' &&
        now - post.createdAt < DUPLICATE_WINDOW_MS,
    );
    if (duplicate) return duplicatePost(res, duplicate.urn);
    const isVideo = attached.some((asset) => asset?.kind === 'video');
    const urn = `urn:li:${isVideo ? 'ugcPost' : 'share'}:${numericId(19, '7')}`;
    posts.set(urn, {
      urn,
      author,
      commentary,
      createdAt: now,
      content: body.content?.multiImage
        ? {
            multiImage: {
              images: mediaIds.map((id, index) => {
                const altText = altTexts[index];
                return typeof altText === 'string' ? { id, altText } : { id };
              }),
            },
          }
        : mediaIds.length > 0
          ? { media: { id: mediaIds[0]!, ...(typeof title === 'string' ? { title } : {}) } }
          : undefined,
    });
    state.recordPost({
      network: 'linkedin',
      id: urn,
      account: author,
      text,
      media: attached.map((asset, index) => ({
        url: asset!.urn,
        kind: asset!.kind,
        ...(typeof altTexts[index] === 'string' ? { alt_text: altTexts[index] } : {}),
      })),
      options: {
        visibility: body.visibility,
        commentary,
        hashtags,
        mentions,
        ...(typeof title === 'string' ? { title } : {}),
      },
      url: `https://www.linkedin.com/feed/update/${urn}`,
      created_at: new Date(now).toISOString(),
    });
    res.setHeader('x-restli-id', urn);
    markPostCreated(res, 'linkedin');
    res.status(201).send();
  });
}

import { Type } from '@sinclair/typebox';
import { Id, Provider } from './common.schemas.ts';

const Range = (description: string) =>
  Type.Optional(Type.Object({ min: Type.Number(), max: Type.Number() }, { description }));

const MediaKindCapability = Type.Object({
  mime_types: Type.Array(Type.String(), {
    description: 'Types accepted for this network (PNG/WebP where a JPEG rendition is sent in their place).',
  }),
  max_bytes: Type.Integer({ description: "The smaller of the network's limit and the media library's." }),
  max_count: Type.Integer({ description: 'Items of this kind one post holds at most.' }),
  gif_max_bytes: Type.Optional(Type.Integer()),
  aspect_ratio: Range('Width / height accepted.'),
  duration_seconds: Range('Video length accepted (the account may lower the maximum, e.g. TikTok creators).'),
  side_px: Range('Pixels per side accepted.'),
  max_pixels: Type.Optional(Type.Integer()),
  max_pages: Type.Optional(Type.Integer({ description: 'Pages a document (PDF) holds at most.' })),
});

export const AccountCapabilities = Type.Object({
  account_id: Id,
  provider: Provider,
  post_types: Type.Array(Type.String(), {
    description:
      'Values `platform_options.<network>.post_type` takes, the default first: Instagram `feed`, `reel`, `story`; Facebook `feed`, `reel`; LinkedIn `post`, `document`; X `post`; TikTok `video`, `photo`, `draft` (TikTok without `post_type`: `video` for a video, `photo` for photos).',
  }),
  post_type_rules: Type.Record(
    Type.String(),
    Type.Object({
      media_kinds: Type.Array(Type.String(), {
        description: 'Media kinds this post type holds (`image`, `video`, `document`).',
      }),
      min_media: Type.Integer(),
      max_media: Type.Integer(),
      duration_seconds: Range(
        "A video's length for this post type (e.g. Instagram reels 3 to 900 s, Facebook reels 3 to 90 s).",
      ),
      max_pages: Type.Optional(
        Type.Integer({ description: 'Pages its document holds at most (LinkedIn `document`: 300).' }),
      ),
      max_bytes: Type.Optional(
        Type.Integer({ description: 'Bytes its document holds at most (LinkedIn `document`: 100 MB).' }),
      ),
    }),
    { description: 'Per post type: the media it holds (checked before a post is accepted).' },
  ),
  max_text_length: Type.Integer({
    description: "This account's text limit (X counts weighted characters; Premium accounts 25,000).",
  }),
  max_media: Type.Integer({ description: 'Media items one post holds at most.' }),
  media: Type.Record(Type.String(), MediaKindCapability, {
    description: 'Per media kind (`image`, `video`; `document` where the network takes PDFs: LinkedIn).',
  }),
  first_comment: Type.Boolean(),
  threads: Type.Boolean(),
  alt_text: Type.Boolean({ description: 'Whether `media_alt_text` reaches this network (not TikTok).' }),
  alt_text_max_length: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Characters one alt text may hold on this network (X 1,000; LinkedIn 4,086); null without alt text.',
  }),
  alt_text_media_kinds: Type.Array(Type.String(), { description: 'Media kinds alt text describes here (`image`).' }),
  scopes: Type.Array(Type.String(), { description: 'Scopes the network granted this connection.' }),
});

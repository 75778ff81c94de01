import { Type } from '@sinclair/typebox';
import { RecurrenceField } from './recurrence.schemas.ts';
import {
  BULK_MAX_POSTS,
  FIRST_COMMENT_MAX_LENGTH,
  FIRST_COMMENT_STATUSES,
  MEDIA_ALT_TEXT_MAX_LENGTH,
  THREAD_MAX_PARTS,
  THREAD_MIN_PARTS,
} from '@svc/contracts';
import {
  CursorPage,
  CursorQuery,
  HttpUrl,
  Id,
  NETWORKS,
  NullableTimestamp,
  Provider,
  StringEnum,
  Timestamp,
} from './common.schemas.ts';

export const JOB_STATUSES = [
  'draft',
  'scheduled',
  'queued',
  'processing',
  'published',
  'partial',
  'failed',
  'canceled',
] as const;
export const JobStatus = StringEnum(JOB_STATUSES);

/** Per-network overrides keyed by network name (e.g. `tiktok.privacy_level`). */
const NetworkOptions = Type.Object(
  Object.fromEntries(NETWORKS.map((network) => [network, Type.Optional(Type.Record(Type.String(), Type.Unknown()))])),
  { additionalProperties: false },
);

const publishFields = {
  account_ids: Type.Array(Id, {
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    description: '1 to 100 connected account ids.',
  }),
  text: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 5000,
      description: "The post's text. Required unless `thread` is given; a body with both is a 400 (`text_or_thread`).",
    }),
  ),
  thread: Type.Optional(
    Type.Array(
      Type.Object(
        {
          text: Type.String({ minLength: 1, maxLength: 5000 }),
          media_urls: Type.Optional(Type.Array(HttpUrl, { maxItems: 35 })),
          media_ids: Type.Optional(Type.Array(Id, { maxItems: 35 })),
        },
        { additionalProperties: false },
      ),
      {
        minItems: THREAD_MIN_PARTS,
        maxItems: THREAD_MAX_PARTS,
        description:
          'A thread instead of `text` (X only; another network is a 400 `thread_unsupported`): 2 to 25 parts, each with its own text and media, published in order, each replying to the one before. Each part is held to the post rules (`/body/thread/<i>/text`...). Media go in the parts (top-level `media_urls`/`media_ids` with a thread is a 400 `thread_media`); no `first_comment` with a thread.',
      },
    ),
  ),
  media_urls: Type.Optional(Type.Array(HttpUrl, { maxItems: 35 })),
  media_alt_text: Type.Optional(
    Type.Array(Type.String({ maxLength: MEDIA_ALT_TEXT_MAX_LENGTH }), {
      maxItems: 35,
      description:
        'Alt text for each medium, aligned with the media list (`media_ids` first, then `media_urls`): the same length or a 400 (`alt_text_count`); `""` leaves an item without one. Held to each network\'s limit (X 1,000, LinkedIn 4,086, Instagram and Facebook 1,000 characters) on images; TikTok has none (400 `alt_text_unsupported`), nor do Instagram reels and stories or Facebook reels. Not with `thread`.',
    }),
  ),
  scheduled_at: Type.Optional(
    Type.String({ format: 'date-time', description: 'With a timezone, at least 60 s ahead.' }),
  ),
  queue: Type.Optional(
    Type.Boolean({
      description:
        "True: schedule at the organization's next queue time free for every target account (`PUT /v1/queue`). Not with `scheduled_at` (400 `queue_with_scheduled_at`); 409 `queue_not_configured` without a queue, `queue_full` when no time of the next two years is free.",
    }),
  ),
  recurrence: Type.Optional(RecurrenceField),
  first_comment: Type.Optional(
    Type.Object(
      { text: Type.String({ minLength: 1, maxLength: FIRST_COMMENT_MAX_LENGTH }) },
      {
        additionalProperties: false,
        description:
          "Posted under each target's post once it is published (Instagram, Facebook, LinkedIn; a reply on X; TikTok: 400 `first_comment_unsupported`), within each network's comment length. Its outcome is the result's `first_comment`; a failed first comment never fails the post.",
      },
    ),
  ),
};

export const PublishCreateBody = Type.Object(
  { ...publishFields, provider_options: Type.Optional(NetworkOptions) },
  { additionalProperties: false },
);
export const PostCreateBody = Type.Object(
  {
    ...publishFields,
    platform_options: Type.Optional(NetworkOptions),
    media_ids: Type.Optional(Type.Array(Id, { maxItems: 35 })),
  },
  { additionalProperties: false },
);

export const PublishJob = Type.Object({ job_id: Id, status: JobStatus, scheduled_at: NullableTimestamp });

export const DeliveryResult = Type.Object({
  account_id: Id,
  provider: Provider,
  status: Type.String(),
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  platform_post_url: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Integer({ minimum: 0 }),
  published_at: NullableTimestamp,
  first_comment: Type.Optional(
    Type.Object(
      {
        status: StringEnum(FIRST_COMMENT_STATUSES),
        platform_comment_id: Type.Union([Type.String(), Type.Null()]),
        error_code: Type.Union([Type.String(), Type.Null()]),
        error_message: Type.Union([Type.String(), Type.Null()]),
      },
      {
        description:
          "Present when the post asked for a first comment: `pending` until the post is published and commented on, then `published` with the network's comment id or `failed` with why (`post_failed` when the post itself failed; `canceled` with the post).",
      },
    ),
  ),
  parts: Type.Optional(
    Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0, description: "The part's position in the request's `thread`." }),
        status: Type.String(),
        platform_post_id: Type.Union([Type.String(), Type.Null()]),
        platform_post_url: Type.Union([Type.String(), Type.Null()]),
        error_code: Type.Union([Type.String(), Type.Null()]),
        error_message: Type.Union([Type.String(), Type.Null()]),
      }),
      {
        description:
          "Present for a thread: every part in order. `published` parts exist on the network and are never posted again; when a part is refused the target is `failed`, that part `failed` with why and the later ones `failed` with `thread_interrupted`. The target's `platform_post_id` is the first part's.",
      },
    ),
  ),
});

export const PublishLogItem = Type.Object({
  id: Id,
  job_id: Id,
  status: JobStatus,
  text: Type.String(),
  providers: Type.Array(Provider),
  results: Type.Array(DeliveryResult),
  created_at: Timestamp,
});

export const Post = Type.Object({
  id: Id,
  status: JobStatus,
  text: Type.String(),
  account_ids: Type.Array(Id),
  providers: Type.Array(Provider),
  media_urls: Type.Array(Type.String()),
  media_ids: Type.Optional(
    Type.Array(Id, {
      description:
        'The library media the post publishes: `media_ids` as given, then the media imported from `media_urls` (`GET /v1/media/{media_id}`). Every occurrence of a recurring post lists those of the first. Absent when the post has none.',
    }),
  ),
  scheduled_at: NullableTimestamp,
  created_at: Timestamp,
  results: Type.Array(DeliveryResult),
  version: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'The edit version of a post that can be edited (a draft; the text and media of a failed or partial post before a retry), bumped by each edit (`If-Match` of `PATCH /v1/posts/{post_id}`); absent otherwise. A draft has no `results` until it is published.',
    }),
  ),
  approval: Type.Optional(
    Type.Object(
      {
        status: StringEnum(['pending', 'approved', 'changes_requested'] as const),
        requested_at: Timestamp,
        decided_at: NullableTimestamp,
        decided_via: Type.Union([StringEnum(['dashboard', 'review_link'] as const), Type.Null()]),
        decided_by: Type.Union([Type.String(), Type.Null()], {
          description: 'The dashboard user; null through a review link.',
        }),
        comment: Type.Union([Type.String(), Type.Null()]),
      },
      {
        description:
          'Present once approval was asked for the draft (`POST /v1/posts/{post_id}/request-approval`); it is published only once `approved`.',
      },
    ),
  ),
  recurrence_id: Type.Optional(
    Type.String({
      description:
        'Present on an occurrence of a recurring post: its recurrence (`GET /v1/recurrences/{recurrence_id}`).',
    }),
  ),
});

export const PublishListQuery = Type.Object(
  {
    status: Type.Optional(JobStatus),
    provider: Type.Optional(Provider),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...CursorQuery,
  },
  { additionalProperties: false },
);
export const PublishList = CursorPage(PublishLogItem);
export const PostList = CursorPage(Post);
export const JobIdParams = Type.Object({ job_id: Id });
export const PostIdParams = Type.Object({ post_id: Id });
export const IdempotencyKeyHeader = Type.String({ minLength: 1, maxLength: 255 });

export const PostValidation = Type.Object({
  valid: Type.Boolean({ description: 'True when `problems` is empty: `POST /v1/posts` would accept this body now.' }),
  problems: Type.Array(
    Type.Object({
      account_id: Type.Union([Type.String(), Type.Null()], {
        description:
          'The target account the problem concerns; null for one of the whole post (a media URL, the schedule).',
      }),
      path: Type.String({ description: 'JSON pointer into the request, e.g. `/body/account_ids/0`.' }),
      rule: Type.String({ description: 'The rule broken, e.g. `text_length`, `media_required`, `scheduled_at_lead`.' }),
      message: Type.String(),
    }),
    { description: 'Every problem of every target at once, in body order.' },
  ),
});

export const PostBulkBody = Type.Object(
  {
    posts: Type.Array(Type.Omit(PostCreateBody, ['queue', 'recurrence']), {
      minItems: 1,
      maxItems: BULK_MAX_POSTS,
      description: `1 to ${BULK_MAX_POSTS} create bodies, each as \`POST /v1/posts\` takes it; row n of the answers is \`posts[n-1]\`.`,
    }),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'Check every row and answer 200 with the problems; nothing is created.' }),
    ),
  },
  { additionalProperties: false },
);

export const PostBulkCreated = Type.Object({
  items: Type.Array(Post, { description: 'The created posts, in row order.' }),
});

export const BulkProblem = Type.Object({
  row: Type.Integer({
    minimum: 1,
    description: 'The 1-based row: the position in `posts`, or the data row of the CSV (the header not counted).',
  }),
  account_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The target account the problem concerns; null for one of the whole row.',
  }),
  path: Type.String({
    description:
      'JSON pointer inside the row, e.g. `/account_ids/0`, `/text` (a CSV column); empty for the row as a whole.',
  }),
  rule: Type.String({
    description:
      'The rule broken: a content rule as `POST /v1/posts/validate` names them, a schema keyword (`required`, `maxLength`, `format`...) or `csv` for a row the CSV parser could not read.',
  }),
  message: Type.String(),
});

export const PostBulkValidation = Type.Object({
  valid: Type.Boolean({
    description: 'True when `problems` is empty: the same bulk without `dry_run` would be accepted now.',
  }),
  problems: Type.Array(BulkProblem, { description: 'Every problem of every row, in row order.' }),
});

import { Type, type Static } from '@sinclair/typebox';
import { NullableDate, Provider } from './accounts.schemas.ts';

/** Shapes shared by the publishing messages and the gateway's HTTP schemas. */
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
export type JobStatusType = (typeof JOB_STATUSES)[number];
export const JobStatus = Type.Unsafe<JobStatusType>({ type: 'string', enum: [...JOB_STATUSES] });

export const DELIVERY_STATUSES = ['pending', 'in_flight', 'published', 'failed', 'canceled'] as const;
export type DeliveryStatusType = (typeof DELIVERY_STATUSES)[number];
export const DeliveryStatus = Type.Unsafe<DeliveryStatusType>({ type: 'string', enum: [...DELIVERY_STATUSES] });

/** Most due jobs one `publisher.job_dispatch.v2` carries: bounds the publisher's transaction (a job has up to 100 targets). */
/** Posts one bulk request carries at most (`POST /v1/posts/bulk`). */
export const BULK_MAX_POSTS = 500;
export const JOB_DISPATCH_MAX_JOBS = 500;

/**
 * Most deliveries one `publisher.delivery_run.v2` carries. Every message costs the outbox a row, the
 * relay a confirmed publish and the broker a persisted message, whatever it holds: a job's targets
 * in messages of 10 cost a tenth of one message each (docs/performance.md). Small enough that a big
 * job's targets still spread over the publisher's replicas.
 */
export const DELIVERY_RUN_MAX_DELIVERIES = 10;

/**
 * Most post.queued events one `publisher.posts_queued.v1` carries, and the most bytes of JSON they
 * take (a post's text is up to 5,000 characters): well under RabbitMQ's largest message, and a
 * redelivery repeats no more than that many fan-outs, each a no-op the second time.
 */
export const POSTS_QUEUED_MAX_EVENTS = 100;
export const POSTS_QUEUED_MAX_BYTES = 1024 * 1024;

/** Per-network options keyed by network name (`provider_options` of jobs, `platform_options` of posts). */
export const NetworkOptions = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));

export const FIRST_COMMENT_STATUSES = ['pending', 'published', 'failed', 'canceled'] as const;
export type FirstCommentStatusType = (typeof FIRST_COMMENT_STATUSES)[number];

/** The longest alt text one medium may carry (LinkedIn's); each network's own limit is checked at accept. */
export const MEDIA_ALT_TEXT_MAX_LENGTH = 4086;

/** The longest first comment a post may ask for; each network's own limit is checked at accept. */
export const FIRST_COMMENT_MAX_LENGTH = 8000;

/**
 * The first comment of one target (docs/api-conventions.md, "First comments"): posted under the post
 * once it is published, with an outcome of its own; a failed comment never fails its post.
 */
export const FirstCommentView = Type.Object({
  status: Type.Unsafe<FirstCommentStatusType>({ type: 'string', enum: [...FIRST_COMMENT_STATUSES] }),
  platform_comment_id: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
});
export type FirstCommentViewType = Static<typeof FirstCommentView>;

/** Parts of a thread (docs/api-conventions.md, "Threads"): one post, then each part replying to the one before. */
export const THREAD_MIN_PARTS = 2;
export const THREAD_MAX_PARTS = 25;

/** One part of a thread as asked for. */
export const ThreadPartRequest = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 5000 }),
  media_urls: Type.Optional(Type.Array(Type.String())),
  media_ids: Type.Optional(Type.Array(Type.String())),
});

/**
 * One part of a thread target's outcome, by `index` in the request's `thread`: `published` once it
 * exists (never posted again), `failed` for the part refused (with why) and those after it, which
 * were not posted; `pending` while the target runs.
 */
export const ThreadPartView = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  status: DeliveryStatus,
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  platform_post_url: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
});
export type ThreadPartViewType = Static<typeof ThreadPartView>;

/** The outcome for one target account of a job (docs/api-conventions.md, "Publishing model and statuses"). */
export const DeliveryResultView = Type.Object({
  account_id: Type.String(),
  provider: Provider,
  status: DeliveryStatus,
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  platform_post_url: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Integer({ minimum: 0 }),
  published_at: NullableDate,
  /** Present when the post asked for a first comment. */
  first_comment: Type.Optional(FirstCommentView),
  /** Present for a thread: every part, in order. */
  parts: Type.Optional(Type.Array(ThreadPartView)),
});
export type DeliveryResultViewType = Static<typeof DeliveryResultView>;

export const APPROVAL_STATUSES = ['pending', 'approved', 'changes_requested'] as const;
/** A draft's approval, once asked for. */
export const ApprovalView = Type.Object({
  status: Type.Unsafe<(typeof APPROVAL_STATUSES)[number]>({ type: 'string', enum: [...APPROVAL_STATUSES] }),
  requested_at: Type.String({ format: 'date-time' }),
  decided_at: NullableDate,
  decided_via: Type.Union([Type.Literal('dashboard'), Type.Literal('review_link'), Type.Null()]),
  decided_by: Type.Union([Type.String(), Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
});
export type ApprovalViewType = Static<typeof ApprovalView>;

/** A job (= post: same id) with one result per target account. */
export const PostView = Type.Object({
  id: Type.String(),
  status: JobStatus,
  text: Type.String(),
  account_ids: Type.Array(Type.String()),
  providers: Type.Array(Provider),
  media_urls: Type.Array(Type.String()),
  /** The library media the post publishes (`media_ids` as given, then those imported from `media_urls`); absent when none. */
  media_ids: Type.Optional(Type.Array(Type.String())),
  scheduled_at: NullableDate,
  created_at: Type.String({ format: 'date-time' }),
  results: Type.Array(DeliveryResultView),
  /** The edit version while the post can be edited (draft, failed, partial): `If-Match` of `PATCH /v1/posts/{id}`. */
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Present once approval was asked for the draft. */
  approval: Type.Optional(ApprovalView),
  /** Present on an occurrence of a recurring post: its recurrence (`GET /v1/recurrences/{id}`). */
  recurrence_id: Type.Optional(Type.String()),
});
export type PostViewType = Static<typeof PostView>;

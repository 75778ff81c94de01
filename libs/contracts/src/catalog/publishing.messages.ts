import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { RecurrenceRule } from './recurrence.messages.ts';
import { NullableDate, Provider } from '../schemas/accounts.schemas.ts';
import {
  BULK_MAX_POSTS,
  DELIVERY_RUN_MAX_DELIVERIES,
  DeliveryStatus,
  FIRST_COMMENT_MAX_LENGTH,
  FirstCommentView,
  MEDIA_ALT_TEXT_MAX_LENGTH,
  JOB_DISPATCH_MAX_JOBS,
  JobStatus,
  NetworkOptions,
  POSTS_QUEUED_MAX_EVENTS,
  PostView,
  THREAD_MAX_PARTS,
  THREAD_MIN_PARTS,
  ThreadPartRequest,
  ThreadPartView,
} from '../schemas/publishing.schemas.ts';

// The publisher owns jobs (= posts) and their per-account deliveries; the scheduler owns due times.
// RPC serves the gateway; commands move work between the two services through their outboxes.

/** Validates (accounts, per-network content rules, schedule) and stores a job; the reply is the new post. */
export const publisherJobCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_create.v1',
  service: 'publisher',
  payload: Type.Object({
    /**
     * Set when the request carried an Idempotency-Key: the same id on every retry of that key, so a
     * job created by a request whose answer was lost is returned instead of created twice.
     */
    job_id: Type.Optional(
      Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
    ),
    account_ids: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }),
    /** The post's text; absent for a thread (a body with both, or neither, is refused by validation). */
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
    /** A thread (X only): the parts, each replying to the one before, instead of `text`. */
    thread: Type.Optional(Type.Array(ThreadPartRequest, { minItems: THREAD_MIN_PARTS, maxItems: THREAD_MAX_PARTS })),
    media_urls: Type.Optional(Type.Array(Type.String())),
    media_ids: Type.Optional(Type.Array(Type.String())),
    /** Alt text aligned with the media (`media_ids`, then `media_urls`); "" for an item without one. */
    media_alt_text: Type.Optional(Type.Array(Type.String({ maxLength: MEDIA_ALT_TEXT_MAX_LENGTH }))),
    options: Type.Optional(NetworkOptions),
    scheduled_at: Type.Optional(Type.String()),
    /** Schedule at the organization's next queue time free for every target (not with `scheduled_at`). */
    queue: Type.Optional(Type.Boolean()),
    /** A recurring post: this post again at each time of the weekly rule (recurrence.messages.ts). */
    recurrence: Type.Optional(RecurrenceRule),
    /** Which body field the options came from, so 400 details point at it (`provider_options` / `platform_options`). */
    options_field: Type.Optional(Type.String()),
    /** Posted under the post once it is published, on every target (Instagram, Facebook, LinkedIn, X). */
    first_comment: Type.Optional(
      Type.Object({ text: Type.String({ minLength: 1, maxLength: FIRST_COMMENT_MAX_LENGTH }) }),
    ),
    /** Store the post as a draft (`status: draft`): checked like a post, but nothing is sent or counted. */
    draft: Type.Optional(Type.Boolean()),
  }),
  reply: PostView,
});

/**
 * Every problem `publisher.job_create.v1` would refuse this post for, all at once, creating nothing
 * (no job, no media import, no quota use).
 */
export const publisherJobValidate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_validate.v1',
  service: 'publisher',
  payload: Type.Omit(publisherJobCreate.payload, ['job_id']),
  reply: Type.Object({
    valid: Type.Boolean(),
    problems: Type.Array(
      Type.Object({
        account_id: Type.Union([Type.String(), Type.Null()]),
        path: Type.String(),
        rule: Type.String(),
        message: Type.String(),
      }),
    ),
  }),
});

// A bulk's rows take no queue times: each row names its own `scheduled_at`.
// Nor recurrences: a recurring post is created alone.
const BulkPost = Type.Omit(publisherJobCreate.payload, ['job_id', 'queue', 'recurrence']);

/** A problem of one row of a bulk: `row` is 1-based, `path` a JSON pointer inside that row. */
const BulkProblem = Type.Object({
  row: Type.Integer({ minimum: 1 }),
  account_id: Type.Union([Type.String(), Type.Null()]),
  path: Type.String(),
  rule: Type.String(),
  message: Type.String(),
});

/**
 * Creates every post of a bulk or none: each row is checked as `publisher.job_create.v1` would, and
 * any problem refuses the whole bulk (400, details `[{row, account_id, path, rule, message}]`); a
 * bulk the organization's monthly posts cannot all fit is refused whole (402). The jobs are stored
 * by one statement.
 */
export const publisherJobBulkCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_bulk_create.v1',
  service: 'publisher',
  payload: Type.Object({
    /**
     * Set when the request carried an Idempotency-Key: the same on every retry of that key. Each
     * row's job id derives from it, so a retry returns the jobs a lost answer created.
     */
    operation_id: Type.Optional(
      Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
    ),
    posts: Type.Array(BulkPost, { minItems: 1, maxItems: BULK_MAX_POSTS }),
  }),
  reply: Type.Object({ items: Type.Array(PostView) }),
});

/** Every problem of every row of a bulk, creating nothing (the bulk's dry run). */
export const publisherJobBulkValidate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_bulk_validate.v1',
  service: 'publisher',
  payload: Type.Object({ posts: Type.Array(BulkPost, { minItems: 1, maxItems: BULK_MAX_POSTS }) }),
  reply: Type.Object({ valid: Type.Boolean(), problems: Type.Array(BulkProblem) }),
});

const JobRef = Type.Object({ job_id: Type.String({ minLength: 1 }) });

/** Cancels a scheduled job: 404 unknown or foreign, 409 once queued or later. */
export const publisherJobCancel = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_cancel.v1',
  service: 'publisher',
  payload: JobRef,
  reply: PostView,
});

export const publisherJobGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_get.v1',
  service: 'publisher',
  payload: JobRef,
  reply: PostView,
});

/** Newest first, keyset-paginated; `q` is PostgreSQL full-text search over the post text. */
export const publisherJobList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_list.v1',
  service: 'publisher',
  payload: Type.Object({
    status: Type.Optional(JobStatus),
    provider: Type.Optional(Provider),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    cursor: Type.Optional(Type.String()),
  }),
  reply: Type.Object({
    items: Type.Array(PostView),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Integer({ minimum: 0 }),
  }),
});

/** The publisher's part of the dashboard stats (docs/api-conventions.md, "Dashboard stats"). */
export const publisherStats = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.stats.v1',
  service: 'publisher',
  payload: Type.Object({}),
  reply: Type.Object({
    posts_this_month: Type.Integer({ minimum: 0 }),
    queue_processing: Type.Integer({ minimum: 0 }),
    success_rate: Type.Number({ minimum: 0, maximum: 1 }),
  }),
});

/**
 * Deliver one target of a job. Idempotent on the delivery's state, never on the message alone. Sent
 * for a delivery on its own: a retry, a lookup of an uncertain attempt, a lost command re-sent; a
 * job's targets go out in v2.
 */
export const publisherDeliveryRun = defineMessage({
  kind: 'command',
  type: 'publisher.delivery_run.v1',
  payload: Type.Object({ job_id: Type.String(), delivery_id: Type.String() }),
  description: 'Publish one target account of a job (or resolve a delivery left in flight).',
});

/**
 * A scheduled job is due: the scheduler hands it back to the publisher. Superseded by v2 (many jobs a
 * message); still consumed, because a v1 sent by a scheduler of the previous release can be in flight
 * (its outbox, the queue, a delay tier) during and after a rolling deploy.
 */
export const publisherJobDispatch = defineMessage({
  kind: 'command',
  type: 'publisher.job_dispatch.v1',
  payload: Type.Object({ job_id: Type.String(), scheduled_at: Type.String() }),
  description: 'A scheduled job reached its time; queue its deliveries unless it was canceled.',
});

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });

/**
 * Deliver several targets of one job, each as v1 would (idempotent on each delivery's state): the
 * job's targets when it is queued, in messages of up to DELIVERY_RUN_MAX_DELIVERIES. Acknowledged once
 * every one has run; retried whole when one could not (the others find their work done).
 */
export const publisherDeliveryRunBatch = defineMessage({
  kind: 'command',
  type: 'publisher.delivery_run.v2',
  payload: Type.Object({
    job_id: Uuid,
    delivery_ids: Type.Array(Uuid, { minItems: 1, maxItems: DELIVERY_RUN_MAX_DELIVERIES, uniqueItems: true }),
  }),
  description: 'Publish several target accounts of a job, each on its own, in one command.',
});

/**
 * Scheduled jobs that fell due together, handed back in one command: the publisher queues them in one
 * transaction instead of one per job (1,000 jobs due the same second). Jobs of several
 * organizations may share a message: the envelope's `org_id` is set only when they all belong to one.
 * Each job is still dispatched at most once (the publisher's conditional `scheduled -> queued`) and
 * confirmed one by one (post.queued).
 */
export const publisherJobDispatchBatch = defineMessage({
  kind: 'command',
  type: 'publisher.job_dispatch.v2',
  payload: Type.Object({
    jobs: Type.Array(Type.Object({ job_id: Uuid, scheduled_at: Type.String({ format: 'date-time' }) }), {
      minItems: 1,
      maxItems: JOB_DISPATCH_MAX_JOBS,
    }),
  }),
  description: 'Scheduled jobs reached their time; queue the deliveries of every one not canceled.',
});

export const schedulerJobSchedule = defineMessage({
  kind: 'command',
  type: 'scheduler.job_schedule.v1',
  payload: Type.Object({ job_id: Type.String(), run_at: Type.String({ format: 'date-time' }) }),
  description: 'Fire publisher.job_dispatch.v1 for this job at run_at.',
});

/**
 * The scheduler's confirmation of a dispatch, one per dispatching transaction (not every job's
 * post.queued, which would cost the scheduler's queue a copy of each accepted job to drop).
 */
export const schedulerJobsQueued = defineMessage({
  kind: 'command',
  type: 'scheduler.jobs_queued.v1',
  payload: Type.Object({ job_ids: Type.Array(Uuid, { minItems: 1, maxItems: JOB_DISPATCH_MAX_JOBS }) }),
  description:
    'These dispatched jobs have left scheduled (queued now or before, not canceled): their dispatch is handed over.',
});

export const schedulerJobUnschedule = defineMessage({
  kind: 'command',
  type: 'scheduler.job_unschedule.v1',
  payload: Type.Object({ job_id: Type.String() }),
  description: 'The job was canceled; drop its due time.',
});

/** One target's outcome in an event: what webhook Shape B needs per account. */
const EventResult = Type.Object({
  account_id: Type.String(),
  provider: Provider,
  status: DeliveryStatus,
  platform_post_id: Type.Union([Type.String(), Type.Null()]),
  platform_post_url: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  /** When the target went live (added later: optional, so events from older publishers still validate). */
  published_at: Type.Optional(NullableDate),
  /** The target's first comment, when the post asked for one. */
  first_comment: Type.Optional(FirstCommentView),
  /** A thread target's parts, in order. */
  parts: Type.Optional(Type.Array(ThreadPartView)),
});

/** Shape A needs `id`, `account_ids`, `platforms`, `text` (+ `error_message`); Shape B `job_id` and `results`. */
const PostEventPayload = Type.Object({
  id: Type.String(),
  job_id: Type.String(),
  status: JobStatus,
  account_ids: Type.Array(Type.String()),
  platforms: Type.Array(Provider),
  text: Type.String(),
  scheduled_at: NullableDate,
  error_message: Type.Union([Type.String(), Type.Null()]),
  results: Type.Array(EventResult),
});

export const postQueued = defineMessage({
  kind: 'event',
  type: 'post.queued.v1',
  payload: PostEventPayload,
  description: 'A job entered the delivery queue.',
});

/**
 * The post.queued events of jobs of one organization queued by one statement (an accept batch, a
 * dispatch of due jobs), each exactly the envelope it would have been sent as alone: its own
 * `message_id` (the webhook event's id, and the fan-out's key), time and request id. Consumers take
 * each as a post.queued.v1 of the carrier's organization. One message for many: a job's post.queued
 * alone is a persisted broker message, an outbox row and a confirmed publish of its own, and would be
 * the accept benchmark's busiest message by count.
 */
export const postsQueued = defineMessage({
  kind: 'event',
  type: 'publisher.posts_queued.v1',
  payload: Type.Object({
    events: Type.Array(
      Type.Object({
        message_id: Uuid,
        type: Type.Literal(postQueued.type),
        occurred_at: Type.String({ format: 'date-time' }),
        request_id: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
        org_id: Type.String({ maxLength: 200 }),
        payload: PostEventPayload,
      }),
      { minItems: 1, maxItems: POSTS_QUEUED_MAX_EVENTS },
    ),
  }),
  description: 'Jobs of one organization entered the delivery queue together: their post.queued events.',
});
export const postPublished = defineMessage({
  kind: 'event',
  type: 'post.published.v1',
  payload: PostEventPayload,
  description: 'A job delivered to at least one account (status published or partial; error_message set when partial).',
});
export const postFailed = defineMessage({
  kind: 'event',
  type: 'post.failed.v1',
  payload: PostEventPayload,
  description: 'A job failed for every account.',
});

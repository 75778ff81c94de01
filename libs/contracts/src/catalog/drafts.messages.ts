import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { APPROVAL_STATUSES, PostView } from '../schemas/publishing.schemas.ts';
import { publisherJobCreate } from './publishing.messages.ts';

// Drafts (edited, published, deleted) and the retry of a post's failed targets: RPCs the gateway
// sends the publisher, which owns jobs. A draft is a job in status `draft` with its request kept.

const JobId = Type.String({ minLength: 1 });
const Version = Type.Integer({ minimum: 1 });

/**
 * Edits a draft: the fields given replace the draft's (`text` and `thread` replace each other), the
 * result is checked exactly like a create, and the version goes up by one. `version` (from the
 * gateway's `If-Match` or the body) must be the draft's current one: 409 `conflict` otherwise.
 */
export const publisherDraftUpdate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.draft_update.v1',
  service: 'publisher',
  payload: Type.Object({
    job_id: JobId,
    version: Type.Optional(Version),
    changes: Type.Partial(Type.Omit(publisherJobCreate.payload, ['job_id', 'draft', 'options_field'])),
    options_field: Type.Optional(Type.String()),
  }),
  reply: PostView,
});

/**
 * Sends a draft: checked again as a create, counted against the monthly posts limit (402 when none
 * is left, the draft kept), then queued or scheduled (`scheduled_at` given here replaces the draft's).
 * 409 for a post that is not a draft.
 */
export const publisherDraftPublish = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.draft_publish.v1',
  service: 'publisher',
  payload: Type.Object({
    job_id: JobId,
    version: Type.Optional(Version),
    scheduled_at: Type.Optional(Type.String()),
  }),
  reply: PostView,
});

/** Deletes a draft: 404 unknown or foreign, 409 for a post that is not a draft. */
export const publisherDraftDelete = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.draft_delete.v1',
  service: 'publisher',
  payload: Type.Object({ job_id: JobId }),
  reply: Type.Object({ deleted: Type.Literal(true) }),
});

/**
 * Delivers a finished post's failed targets again (those without a native post id); the post goes
 * back to `queued`. 409 when it has no failed target.
 */
export const publisherJobRetry = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.job_retry.v1',
  service: 'publisher',
  payload: Type.Object({ job_id: JobId }),
  reply: PostView,
});

/** Asks for a draft's approval (approval `pending`); 409 for a post that is not a draft. */
export const publisherApprovalRequest = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.approval_request.v1',
  service: 'publisher',
  payload: Type.Object({ job_id: JobId }),
  reply: PostView,
});

/**
 * Decides a pending approval: from the dashboard (`by` the user) or a review link (`version` the
 * link was signed for: 409 when the draft was edited since). 409 when no approval is pending.
 */
export const publisherApprovalDecide = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.approval_decide.v1',
  service: 'publisher',
  payload: Type.Object({
    job_id: JobId,
    decision: Type.Union([Type.Literal('approve'), Type.Literal('request_changes')]),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    via: Type.Union([Type.Literal('dashboard'), Type.Literal('review_link')]),
    by: Type.Union([Type.String(), Type.Null()]),
    version: Type.Optional(Version),
  }),
  reply: PostView,
});

export { APPROVAL_STATUSES };

import type {
  connectionRevoked,
  Envelope,
  PayloadFormat,
  PayloadOf,
  postPublished,
  WebhookEventType,
} from '@svc/contracts';

export type PostEvent = PayloadOf<typeof postPublished>;
export type RevokedEvent = PayloadOf<typeof connectionRevoked>;

/** A customer-visible event, as the dispatcher receives it (wire type without its version). */
export type CustomerEvent =
  | { type: Exclude<WebhookEventType, 'connection.revoked'>; occurredAt: string; payload: PostEvent }
  | { type: 'connection.revoked'; occurredAt: string; payload: RevokedEvent };

/** One body to send: `key` deduplicates per endpoint (a redelivered event builds the same keys). */
export interface DeliveryBody {
  key: string;
  body: (deliveryId: string) => string;
}

/** Wire type `post.published.v1` -> webhook event `post.published`. */
export function customerEvent(envelope: Envelope<PostEvent | RevokedEvent>): CustomerEvent {
  const type = envelope.type.replace(/\.v\d+$/, '') as WebhookEventType;
  if (type === 'connection.revoked')
    return { type, occurredAt: envelope.occurred_at, payload: envelope.payload as RevokedEvent };
  return { type, occurredAt: envelope.occurred_at, payload: envelope.payload as PostEvent };
}

/**
 * Shape A `data` (interface spec, Events). Posts: `id`, `account_ids`, `platforms`, `text`, plus
 * `error_message` for post.failed and partial post.published, and `scheduled_at` for post.queued.
 * connection.revoked: the account (`account_id`, `provider`, `platform_account_id`, `handle`, `health`,
 * `reason`), documented in docs/webhooks.md.
 */
function envelopeData(event: CustomerEvent): Record<string, unknown> {
  if (event.type === 'connection.revoked') {
    const { account_id, provider, platform_account_id, handle, health, reason } = event.payload;
    return { account_id, provider, platform_account_id, handle, health, reason };
  }
  const post = event.payload;
  const data: Record<string, unknown> = {
    id: post.id,
    account_ids: post.account_ids,
    platforms: post.platforms,
    text: post.text,
  };
  if (event.type === 'post.queued') data.scheduled_at = post.scheduled_at;
  const failed = event.type === 'post.failed' || (event.type === 'post.published' && post.status === 'partial');
  if (failed) data.error_message = post.error_message ?? firstError(post) ?? 'Publishing failed.';
  return { ...data, ...perTarget(post) };
}

/**
 * Shape A describes the whole post, so what each target carries beyond its post is listed per
 * account, only where the post has it: `first_comment`, one entry per target with its `account_id`
 * and the comment's outcome; `parts`, one entry per part of each target's thread with its
 * `account_id`, in order.
 */
function perTarget(post: PostEvent): Record<string, unknown> {
  const comments = post.results.flatMap((result) =>
    result.first_comment === undefined ? [] : [{ account_id: result.account_id, ...result.first_comment }],
  );
  const parts = post.results.flatMap((result) =>
    (result.parts ?? []).map((part) => ({ account_id: result.account_id, ...part })),
  );
  return {
    ...(comments.length === 0 ? {} : { first_comment: comments }),
    ...(parts.length === 0 ? {} : { parts }),
  };
}

function firstError(post: PostEvent): string | undefined {
  return post.results.find((result) => result.error_message !== null)?.error_message ?? undefined;
}

/**
 * Shape B `data` is one account: `job_id`, `account_id`, `provider`, `platform_post_id`, `status`
 * (and the account's `first_comment` and thread `parts` when the post has them), so a post event becomes one body per
 * target account; connection.revoked has no job (`job_id: null`, `status` = the account's health).
 */
function legacyData(event: CustomerEvent): { key: string; data: Record<string, unknown> }[] {
  if (event.type === 'connection.revoked') {
    const account = event.payload;
    return [
      {
        key: account.account_id,
        data: {
          job_id: null,
          account_id: account.account_id,
          provider: account.provider,
          platform_post_id: null,
          status: account.health,
        },
      },
    ];
  }
  return event.payload.results.map((result) => ({
    key: result.account_id,
    data: {
      job_id: event.payload.job_id,
      account_id: result.account_id,
      provider: result.provider,
      platform_post_id: result.platform_post_id,
      status: event.type === 'post.queued' ? 'queued' : result.status,
      ...(result.first_comment === undefined ? {} : { first_comment: result.first_comment }),
      ...(result.parts === undefined ? {} : { parts: result.parts }),
    },
  }));
}

/** The bodies one endpoint receives for an event, in its payload format. */
export function deliveryBodies(event: CustomerEvent, eventId: string, format: PayloadFormat): DeliveryBody[] {
  if (format === 'legacy') {
    return legacyData(event).map(({ key, data }) => ({
      key: `${eventId}:${key}`,
      body: () => JSON.stringify({ event_type: event.type, timestamp: event.occurredAt, data }),
    }));
  }
  const data = envelopeData(event);
  return [
    {
      key: eventId,
      body: (deliveryId) => JSON.stringify({ id: deliveryId, type: event.type, created_at: event.occurredAt, data }),
    },
  ];
}

/** The sample event of `POST /v1/webhooks/{id}/test`: realistic, and marked as a sample. */
export function sampleEvent(type: WebhookEventType, now: Date): CustomerEvent {
  const occurredAt = now.toISOString();
  if (type === 'connection.revoked') {
    return {
      type,
      occurredAt,
      payload: {
        account_id: 'acc_sample',
        provider: 'x',
        platform_account_id: 'sample',
        handle: 'sample',
        health: 'requires_reconnect',
        reason: 'This is a sample event sent by the test endpoint.',
      },
    };
  }
  const failed = type === 'post.failed';
  return {
    type,
    occurredAt,
    payload: {
      id: 'post_sample',
      job_id: 'post_sample',
      status: failed ? 'failed' : type === 'post.queued' ? 'queued' : 'published',
      account_ids: ['acc_sample'],
      platforms: ['x'],
      text: 'This is a sample event sent by the test endpoint.',
      scheduled_at: null,
      error_message: failed ? 'Sample failure.' : null,
      results: [
        {
          account_id: 'acc_sample',
          provider: 'x',
          status: failed ? 'failed' : type === 'post.queued' ? 'pending' : 'published',
          platform_post_id: failed || type === 'post.queued' ? null : 'sample_platform_post',
          platform_post_url: null,
          error_code: failed ? 'sample' : null,
          error_message: failed ? 'Sample failure.' : null,
        },
      ],
    },
  };
}

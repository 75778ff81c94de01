import { Type } from '@sinclair/typebox';
import { PostCreateBody } from './publishing.schemas.ts';

const Version = Type.Integer({ minimum: 1 });

/** `POST /v1/posts`: a create body, which may ask to be kept as a draft. */
export const PostCreateOrDraftBody = Type.Object(
  {
    ...PostCreateBody.properties,
    draft: Type.Optional(
      Type.Boolean({
        description:
          'Keep the post as a draft (201, `status: draft`): checked like any post, but nothing is sent and nothing counts against the monthly posts until `POST /v1/posts/{post_id}/publish`.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `PATCH /v1/posts/{post_id}`: any create field, replacing the draft's. */
export const PostUpdateBody = Type.Object(
  {
    ...Type.Partial(PostCreateBody).properties,
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "The draft's `version` this edit was made from (or send `If-Match`); another version is a 409 `conflict`.",
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      "Fields replace the draft's (`text` and `thread` replace each other); the edited post is checked exactly like a create (400 listing every problem).",
  },
);

/** `POST /v1/posts/{post_id}/publish`. */
export const PostPublishBody = Type.Object(
  {
    scheduled_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: "When to publish (with a timezone, at least 60 s ahead); replaces the draft's own `scheduled_at`.",
      }),
    ),
    version: Type.Optional(Version),
  },
  { additionalProperties: false },
);

/** The retry and the publish bodies are optional: an empty object stands for none. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const IfMatchHeader = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'The draft\'s `version` (e.g. `3` or `"3"`): the edit applies only to that version (409 otherwise).',
});

export const PostReviewBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('request_changes')]),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const ReviewLink = Type.Object({
  url: Type.String({
    description: 'The review page: no sign-in needed; valid until `expires_at` and while the draft is not edited.',
  }),
  expires_at: Type.String({ format: 'date-time' }),
  version: Type.Integer({ minimum: 1, description: 'The draft version the link shows; an edit invalidates it.' }),
});

export const ReviewTokenParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 1000 }) });

export const ReviewForm = Type.Object({
  decision: Type.String({ description: '`approve` or `request_changes`.' }),
  comment: Type.Optional(Type.String({ maxLength: 2000 })),
});

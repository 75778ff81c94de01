import { Type } from '@sinclair/typebox';
import { PlanLimits, PlanNameSchema, SubscriptionStatusSchema } from '@svc/contracts';
import { NullableTimestamp, Timestamp } from './common.schemas.ts';

export const PortalSession = Type.Object({
  url: Type.String({ format: 'uri', description: 'Hosted Stripe customer-portal address.' }),
});

const Usage = (description: string) =>
  Type.Object(
    {
      used: Type.Integer({ minimum: 0 }),
      limit: Type.Integer({ minimum: 0, description: 'The limit enforced right now.' }),
    },
    { description },
  );

export const BillingSubscription = Type.Object({
  plan: PlanNameSchema,
  status: SubscriptionStatusSchema,
  subscribed_plan: Type.Union([PlanNameSchema, Type.Null()], {
    description:
      'The plan of the deciding subscription (null without one); with a canceled or unpaid status the free plan applies.',
  }),
  current_period_end: NullableTimestamp,
  cancel_at_period_end: Type.Boolean(),
  limits: PlanLimits,
  usage: Type.Object({
    connected_accounts: Usage(
      'Accounts stored for the organization, whatever their health; reconnecting one never needs a new slot.',
    ),
    posts_this_month: Type.Intersect([
      Usage(
        'Posts this calendar month (UTC), counted per job: one publish job or post is one, whatever its number of target accounts; a canceled scheduled job gives its unit back.',
      ),
      Type.Object({ period_start: Timestamp }),
    ]),
  }),
});

export const StripeSignatureHeader = Type.String({
  minLength: 1,
  description: "Stripe's signature over the exact raw body (`t=...,v1=...`).",
});
export const StripeEventBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'A Stripe Event, exactly as Stripe sent it (verified over the raw bytes).',
  },
);
export const WebhookReceived = Type.Object({
  received: Type.Literal(true),
  event_id: Type.String(),
  duplicate: Type.Boolean(),
});

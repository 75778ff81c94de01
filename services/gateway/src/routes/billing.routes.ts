import {
  accountsUsage,
  billingCheckoutCreate,
  billingPortalCreate,
  billingSubscriptionGet,
  billingWebhookReceive,
  publisherUsage,
} from '@svc/contracts';
import { validationError } from '@svc/errors';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/**
 * Billing (docs/api-conventions.md, "Billing"). Checkout, portal and the subscription are
 * dashboard-JWT only; the Stripe webhook carries no credential but Stripe's signature, which
 * billing verifies over the raw body. Usage comes from the services that enforce each limit,
 * counted exactly as they count it.
 */
export function billingRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.createCheckout, async ({ principal, requestId }) => ({
      status: 200,
      body: await rpc(billingCheckoutCreate, {}, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.createBillingPortal, async ({ principal, requestId }) => ({
      status: 200,
      body: await rpc(billingPortalCreate, {}, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.getBillingSubscription, async ({ principal, requestId }) => {
      const context = { orgId: principal.orgId, requestId };
      const [subscription, posts, accounts] = await Promise.all([
        rpc(billingSubscriptionGet, {}, context),
        rpc(publisherUsage, {}, context),
        rpc(accountsUsage, {}, context),
      ]);
      return {
        status: 200,
        body: { ...subscription, usage: { connected_accounts: accounts, posts_this_month: posts } },
      };
    }),

    defineRoute(operations.receiveStripeWebhook, async ({ headers, rawBody, requestId }) => {
      const signature = headers['stripe-signature'];
      // Only the shape is checked here (cheaply refusing what Stripe never sends); billing verifies it.
      if (typeof signature !== 'string' || !/(^|,)t=\d+(,|$)/.test(signature) || !/(^|,)v1=[0-9a-f]+/.test(signature)) {
        throw validationError(
          'The Stripe-Signature header is missing or malformed; only Stripe may call this endpoint.',
          [{ path: '/headers/stripe-signature', message: "must be Stripe's t=<timestamp>,v1=<signature>" }],
        );
      }
      if (rawBody === undefined || rawBody.length === 0)
        throw validationError('The webhook body is empty.', [{ path: '/body', message: 'is required' }]);
      const result = await rpc(
        billingWebhookReceive,
        { raw_body_base64: rawBody.toString('base64'), signature },
        { orgId: null, requestId },
      );
      return { status: 200, body: { received: true, event_id: result.event_id, duplicate: result.duplicate } };
    }),
  ];
}

import {
  billingCheckoutCreate,
  billingPortalCreate,
  billingSubscriptionGet,
  billingWebhookReceive,
  type Envelope,
  type RpcHandlers,
} from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { SubscriptionsRepository } from '../data/subscriptions.repository.ts';
import { createCheckout, type CheckoutDeps } from '../domain/create-checkout.ts';
import { createPortal } from '../domain/create-portal.ts';
import { getSubscription } from '../domain/get-subscription.ts';
import type { Plans } from '../domain/plans.ts';
import { receiveWebhook, type WebhookDeps } from '../domain/receive-webhook.ts';

export const billingRpc = [
  billingCheckoutCreate,
  billingPortalCreate,
  billingSubscriptionGet,
  billingWebhookReceive,
] as const;

export interface BillingRpcDeps {
  checkout: CheckoutDeps;
  webhook: WebhookDeps;
  portalReturnUrl: string;
  plans: Plans;
  subscriptions: SubscriptionsRepository;
}

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

export function billingRpcHandlers(deps: BillingRpcDeps): RpcHandlers<typeof billingRpc> {
  return {
    'billing.checkout_create.v1': (env) => createCheckout(deps.checkout, orgOf(env), env.request_id),
    'billing.portal_create.v1': (env) =>
      createPortal(
        { stripe: deps.checkout.stripe, returnUrl: deps.portalReturnUrl, customers: deps.checkout.customers },
        orgOf(env),
        env.request_id,
      ),
    'billing.subscription_get.v1': (env) => getSubscription(deps, orgOf(env)),
    // Unauthenticated at the gateway: the Stripe signature, checked here, is the credential.
    'billing.webhook_receive.v1': (env) =>
      receiveWebhook(deps.webhook, {
        rawBody: Buffer.from(env.payload.raw_body_base64, 'base64'),
        signature: env.payload.signature,
        requestId: env.request_id,
      }),
  };
}

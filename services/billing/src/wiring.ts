import { startPruner, type ServiceRuntime, type WorkerWiring } from '@svc/runtime';
import type Stripe from 'stripe';
import { paidPriceIds, type Config } from './config.ts';
import { CustomersRepository } from './data/customers.repository.ts';
import { OrgPlansRepository } from './data/org-plans.repository.ts';
import { StripeEventsRepository } from './data/stripe-events.repository.ts';
import { SubscriptionsRepository } from './data/subscriptions.repository.ts';
import { Plans } from './domain/plans.ts';
import { resyncPlans } from './domain/resync-plans.ts';
import { stripeFromConfig } from './domain/stripe-client.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { billingRpc, billingRpcHandlers } from './rpc/billing.handlers.ts';

/** Rows per DELETE of the Stripe events pruner. */
const PRUNE_BATCH = 1000;

/** Overrides for tests: a Stripe client built elsewhere. */
export interface BillingWireOptions {
  stripe?: Stripe | null;
}

/** Builds billing from its runtime: the Stripe SDK, repositories, the plans, RPC for the gateway. */
export async function wire(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  options: BillingWireOptions = {},
): Promise<WorkerWiring> {
  const { db, logger, relay } = runtime;
  const stripe = options.stripe === undefined ? stripeFromConfig(config) : options.stripe;
  if (stripe === null)
    logger.warn('STRIPE_SECRET_KEY is not set: checkout and the billing portal answer 503 until it is');
  const paidPrices = paidPriceIds(config);
  const plans = new Plans(
    {
      free: {
        connected_accounts: config.PLAN_FREE_CONNECTED_ACCOUNTS,
        posts_per_month: config.PLAN_FREE_POSTS_PER_MONTH,
      },
      pro: { connected_accounts: config.PLAN_PRO_CONNECTED_ACCOUNTS, posts_per_month: config.PLAN_PRO_POSTS_PER_MONTH },
    },
    paidPrices,
  );
  const customers = new CustomersRepository(db);
  const subscriptions = new SubscriptionsRepository(db);
  const orgPlans = new OrgPlansRepository(db);
  const events = new StripeEventsRepository(db);
  const wake = () => relay.wake();
  await resyncPlans({ db, plans, subscriptions, orgPlans, logger, wake, paidPrices });
  await runtime.broker.serveRpc({
    messages: billingRpc,
    handlers: billingRpcHandlers({
      checkout: {
        stripe,
        priceId: config.STRIPE_PRICE_ID,
        successUrl: config.BILLING_SUCCESS_URL,
        cancelUrl: config.BILLING_CANCEL_URL,
        customers,
        orgPlans,
      },
      webhook: {
        db,
        stripe,
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        toleranceSeconds: config.STRIPE_WEBHOOK_TOLERANCE_SECONDS,
        transactionTimeoutMs: config.STRIPE_TIMEOUT_MS * 3 + 5000,
        customers,
        events,
        plans,
        subscriptions,
        orgPlans,
        logger,
        wake,
      },
      portalReturnUrl: config.BILLING_PORTAL_RETURN_URL,
      plans,
      subscriptions,
    }),
  });
  const pruner = startPruner({
    what: 'Stripe event ids',
    intervalMs: config.PRUNE_INTERVAL_MS,
    logger,
    prune: (shouldStop) => events.prune(config.STRIPE_EVENTS_RETENTION_DAYS, PRUNE_BATCH, shouldStop),
  });
  return { stop: () => pruner.stop() };
}

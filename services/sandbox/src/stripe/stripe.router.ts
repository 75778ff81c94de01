import { json, Router, type Request, type Response } from 'express';
import { type StripeAccount } from './stripe-account.ts';
import { stripeApiRouter } from './stripe-api.routes.ts';
import { registerCheckoutPage } from './checkout-page.routes.ts';
import { sendStripeError, StripeApiError } from './stripe-errors.ts';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './stripe-objects.ts';
import { messagePage } from './stripe-pages.ts';
import { registerPortalPage } from './portal-page.routes.ts';
import { eventJson } from './stripe-state.ts';

export interface StripeRouters {
  /** Mounted at `/v1`: Stripe's API. */
  api: Router;
  /** Mounted at `/stripe`: the hosted Checkout and customer portal pages. */
  pages: Router;
  /** Mounted at `/__sandbox/stripe`: reset, the events sent and their deliveries, subscription status changes. */
  control: Router;
}

const OFF_MESSAGE =
  "The sandbox's Stripe is off: set SANDBOX_STRIPE_WEBHOOK_URL and SANDBOX_STRIPE_WEBHOOK_SECRET to turn it on.";

function controlRouter(account: StripeAccount): Router {
  const router = Router();
  router.use(json());
  router.post('/reset', (_req, res) => {
    account.reset();
    res.status(204).end();
  });
  router.get('/events', (_req, res) => {
    res.json({
      events: account.state.events.map((event) => ({
        ...eventJson(event),
        delivered: event.delivered,
        deliveries: event.deliveries,
      })),
    });
  });
  router.post('/subscriptions/:id/status', (req: Request, res: Response) => {
    const status = (req.body as { status?: unknown } | undefined)?.status;
    if (!SUBSCRIPTION_STATUSES.includes(status as SubscriptionStatus)) {
      return void res.status(400).json({
        error: { code: 'validation_error', message: `status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}.` },
      });
    }
    try {
      const subscription = account.setStatus(String(req.params.id), status as SubscriptionStatus);
      res.json(account.subscriptionJson(subscription));
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      res.status(error.status).json({ error: { code: 'not_found', message: error.message } });
    }
  });
  return router;
}

/** The routers of a sandbox whose Stripe is off: each says so, in the shape its callers read. */
function offRouters(): StripeRouters {
  const api = Router();
  api.use((_req, res) => sendStripeError(res, new StripeApiError(404, 'invalid_request_error', OFF_MESSAGE)));
  const pages = Router();
  pages.use((_req, res) => void res.status(404).type('html').send(messagePage('Stripe is off', OFF_MESSAGE)));
  const control = Router();
  control.use((_req, res) => void res.status(404).json({ error: { code: 'not_found', message: OFF_MESSAGE } }));
  return { api, pages, control };
}

/**
 * The sandbox's Stripe (docs/billing.md, "Development: the sandbox's Stripe"): an account of its own,
 * on only when the sandbox knows where to send webhooks and how to sign them.
 */
export function stripeRouters(account: StripeAccount | null): StripeRouters {
  if (account === null) return offRouters();
  const pages = Router({ strict: true });
  registerCheckoutPage(pages, account);
  registerPortalPage(pages, account);
  pages.use(
    (_req, res) => void res.status(404).type('html').send(messagePage('Page not found', 'There is no such page.')),
  );
  return { api: stripeApiRouter(account), pages, control: controlRouter(account) };
}

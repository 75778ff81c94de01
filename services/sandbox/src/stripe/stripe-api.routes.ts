import { Router, urlencoded, type NextFunction, type Request, type Response } from 'express';
import { type StripeAccount } from './stripe-account.ts';
import { causeOf, stripeAuth, stripeEndpoint, type StripeHandler } from './stripe-api-middleware.ts';
import { invalidParam, missingParam, noSuch, sendStripeError, StripeApiError } from './stripe-errors.ts';
import {
  customerJson,
  listJson,
  portalSessionJson,
  priceJson,
  SUBSCRIPTION_STATUSES,
  type Json,
} from './stripe-objects.ts';
import {
  metadataOf,
  optionalBoolean,
  optionalString,
  optionalUrl,
  paramsOf,
  positiveInteger,
  requiredString,
  type Params,
} from './stripe-params.ts';

const ok = (body: Json) => ({ status: 200, body });

function lineItemsOf(params: Params): { priceId: string; quantity: number }[] {
  const raw = params.line_items;
  const items = Array.isArray(raw) ? raw : raw === undefined ? [] : Object.values(paramsOf(raw));
  if (items.length === 0) throw missingParam('line_items');
  return items.map((item, index) => {
    const line = paramsOf(item);
    const price = optionalString(line, 'price');
    if (price === null) throw missingParam(`line_items[${index}][price]`);
    return { priceId: price, quantity: positiveInteger(line, 'quantity', 1, `line_items[${index}][quantity]`) };
  });
}

/** `GET` lists: `limit` 1..100 (default 10), newest first, as Stripe lists. */
function page<T>(items: T[], query: Params): { data: T[]; hasMore: boolean } {
  const limit = positiveInteger(query, 'limit', 10);
  if (limit > 100)
    throw invalidParam('limit', 'This value must be less than or equal to 100.', 'parameter_invalid_integer');
  return { data: items.slice(0, limit), hasMore: items.length > limit };
}

/**
 * `/v1`: the part of Stripe's API a subscription product uses, with stripe-node's request and answer
 * shapes (form-encoded parameters, Bearer test key, Idempotency-Key, `{error: ...}`). Mounted at the
 * sandbox's root because the SDK takes only protocol, host and port (its base path is always `/v1/`).
 */
export function stripeApiRouter(account: StripeAccount): Router {
  const router = Router({ strict: true });
  const { state } = account;
  router.use(stripeAuth(state));
  router.use(urlencoded({ extended: true, limit: '256kb', parameterLimit: 1000 }));
  const endpoint = (handler: StripeHandler) => stripeEndpoint(state, handler);
  const body = (req: Request) => paramsOf(req.body);
  const query = (req: Request) => paramsOf(req.query);

  router.post(
    '/customers',
    endpoint((req) => {
      const params = body(req);
      return ok(
        customerJson(
          account.createCustomer({
            email: optionalString(params, 'email', 512),
            name: optionalString(params, 'name', 256),
            description: optionalString(params, 'description', 350),
            metadata: metadataOf(params),
          }),
        ),
      );
    }),
  );
  router.get(
    '/customers/:id',
    endpoint((req) => {
      const customer = state.customers.get(String(req.params.id));
      if (customer === undefined) throw noSuch('customer', String(req.params.id), 'id');
      return ok(customerJson(customer));
    }),
  );

  router.get(
    '/prices',
    endpoint((req) => {
      const { data, hasMore } = page([...state.prices.values()].map(priceJson), query(req));
      return ok(listJson('/v1/prices', data, hasMore));
    }),
  );
  router.get(
    '/prices/:id',
    endpoint((req) => {
      const price = state.prices.get(String(req.params.id));
      if (price === undefined) throw noSuch('price', String(req.params.id), 'price');
      return ok(priceJson(price));
    }),
  );

  router.post(
    '/checkout/sessions',
    endpoint((req) => {
      const params = body(req);
      const mode = requiredString(params, 'mode');
      if (mode !== 'subscription')
        throw invalidParam(
          'mode',
          `The sandbox's Checkout makes subscriptions only (mode=subscription), not mode=${mode}.`,
        );
      const customer = optionalString(params, 'customer');
      const customerEmail = optionalString(params, 'customer_email', 800);
      if (customer !== null && customerEmail !== null)
        throw invalidParam('customer_email', 'You may only specify one of these parameters: customer, customer_email.');
      const successUrl = optionalUrl(params, 'success_url');
      if (successUrl === null) throw missingParam('success_url');
      const session = account.createCheckoutSession({
        customer,
        customerEmail,
        lineItems: lineItemsOf(params),
        successUrl,
        cancelUrl: optionalUrl(params, 'cancel_url'),
        clientReferenceId: optionalString(params, 'client_reference_id', 200),
        metadata: metadataOf(params),
        subscriptionMetadata: metadataOf(paramsOf(params.subscription_data)),
      });
      return ok(account.sessionJson(session));
    }),
  );
  router.get(
    '/checkout/sessions/:id',
    endpoint((req) => {
      const session = account.checkoutSession(String(req.params.id));
      if (session === undefined) throw noSuch('checkout.session', String(req.params.id), 'session');
      return ok(account.sessionJson(session));
    }),
  );
  router.post(
    '/checkout/sessions/:id/expire',
    endpoint((req) => ok(account.sessionJson(account.expireCheckoutSession(String(req.params.id))))),
  );

  router.post(
    '/billing_portal/sessions',
    endpoint((req) => {
      const params = body(req);
      const session = account.createPortalSession(
        requiredString(params, 'customer'),
        optionalUrl(params, 'return_url'),
      );
      return ok(portalSessionJson(session));
    }),
  );

  router.get(
    '/subscriptions',
    endpoint((req) => {
      const params = query(req);
      const customer = optionalString(params, 'customer');
      const status = optionalString(params, 'status') ?? 'default';
      if (status !== 'default' && status !== 'all' && !SUBSCRIPTION_STATUSES.includes(status as never))
        throw invalidParam('status', `Invalid status: must be one of all, ${SUBSCRIPTION_STATUSES.join(', ')}`);
      // Without `status`, Stripe lists every subscription that is not canceled.
      const matching = [...state.subscriptions.values()]
        .filter((subscription) => customer === null || subscription.customer === customer)
        .filter((subscription) =>
          status === 'all'
            ? true
            : status === 'default'
              ? subscription.status !== 'canceled'
              : subscription.status === status,
        )
        .reverse();
      const { data, hasMore } = page(matching, params);
      return ok(
        listJson(
          '/v1/subscriptions',
          data.map((subscription) => account.subscriptionJson(subscription)),
          hasMore,
        ),
      );
    }),
  );
  router.get(
    '/subscriptions/:id',
    endpoint((req) => ok(account.subscriptionJson(account.subscription(String(req.params.id))))),
  );
  router.post(
    '/subscriptions/:id',
    endpoint((req, res) => {
      const id = String(req.params.id);
      const params = body(req);
      if (params.metadata !== undefined) account.updateMetadata(id, metadataOf(params));
      const cancel = optionalBoolean(params, 'cancel_at_period_end');
      const subscription =
        cancel === null ? account.subscription(id) : account.setCancelAtPeriodEnd(id, cancel, causeOf(req, res));
      return ok(account.subscriptionJson(subscription));
    }),
  );
  router.delete(
    '/subscriptions/:id',
    endpoint((req, res) => ok(account.subscriptionJson(account.cancelNow(String(req.params.id), causeOf(req, res))))),
  );

  router.use((req: Request, res: Response) =>
    sendStripeError(
      res,
      new StripeApiError(
        404,
        'invalid_request_error',
        `Unrecognized request URL (${req.method}: ${req.baseUrl}${req.path}). The sandbox's Stripe serves customers, prices, checkout and billing portal sessions and subscriptions.`,
      ),
    ),
  );
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status !== undefined && status >= 400 && status < 500)
      return sendStripeError(res, new StripeApiError(status, 'invalid_request_error', (error as Error).message));
    sendStripeError(res, new StripeApiError(500, 'api_error', 'An unknown error occurred.'));
  });
  return router;
}

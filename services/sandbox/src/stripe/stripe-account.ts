import { invalidParam, noSuch, StripeApiError } from './stripe-errors.ts';
import {
  stripeId,
  subscriptionJson,
  checkoutSessionJson,
  type CheckoutSessionRecord,
  type CustomerRecord,
  type Json,
  type Metadata,
  type PortalSessionRecord,
  type PriceRecord,
  type SubscriptionRecord,
  type SubscriptionStatus,
} from './stripe-objects.ts';
import { StripeState, type EventRecord } from './stripe-state.ts';
import { WebhookSender } from './stripe-webhooks.ts';

export interface StripeSandboxOptions {
  /** Where events are delivered: the product's Stripe webhook endpoint (through its gateway). */
  webhookUrl: string;
  /** The endpoint's signing secret (`whsec_...`), the same the product verifies with. */
  webhookSecret: string;
  /** Recurring monthly prices the account sells (each US$29.00 a month). Default `price_sandbox_pro`. */
  priceIds?: readonly string[];
  /** Delays before each redelivery of an event whose delivery failed. Default 1 s, 5 s, 30 s, 2 min, 10 min. */
  retryDelaysMs?: readonly number[];
  /** How long one delivery waits for the endpoint. Default 10 s. */
  webhookTimeoutMs?: number;
}

/** Who caused an event: an API request (its id and idempotency key) or, with nulls, the hosted pages. */
export interface EventCause {
  requestId: string | null;
  idempotencyKey: string | null;
}

const DAY = 86_400;
const PAGE_CAUSE: EventCause = { requestId: null, idempotencyKey: null };

/** One month later, the same day and time (Stripe's monthly billing cycle, clamped to the month's end). */
function addMonth(seconds: number): number {
  const date = new Date(seconds * 1000);
  const next = new Date(date);
  next.setUTCMonth(date.getUTCMonth() + 1);
  if (next.getUTCDate() !== date.getUTCDate()) next.setUTCDate(0);
  return Math.floor(next.getTime() / 1000);
}

/**
 * The sandbox's Stripe account: customers, checkout, subscriptions and the events they produce, each
 * event delivered to the configured webhook endpoint. Routes (API, hosted pages, control) only parse
 * and render; every change goes through here, so an API call and a click on a hosted page emit the
 * same events.
 */
export class StripeAccount {
  readonly state: StripeState;
  private readonly sender: WebhookSender;

  constructor(
    readonly publicUrl: string,
    options: StripeSandboxOptions,
    private readonly now: () => number = Date.now,
  ) {
    const created = Math.floor(now() / 1000);
    const prices = new Map<string, PriceRecord>();
    for (const id of options.priceIds ?? ['price_sandbox_pro'])
      prices.set(id, {
        id,
        product: 'prod_sandbox_pro',
        productName: 'Pro',
        unitAmount: 2900,
        currency: 'usd',
        interval: 'month',
        created,
      });
    this.state = new StripeState(prices);
    this.sender = new WebhookSender({
      url: options.webhookUrl,
      secret: options.webhookSecret,
      retryDelaysMs: options.retryDelaysMs ?? [1000, 5000, 30_000, 120_000, 600_000],
      timeoutMs: options.webhookTimeoutMs ?? 10_000,
      now,
    });
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  reset(): void {
    this.sender.reset();
    this.state.reset();
  }

  createCustomer(
    params: { email: string | null; name: string | null; description: string | null; metadata: Metadata },
    id = stripeId('cus'),
  ): CustomerRecord {
    const customer = { id, created: this.seconds(), ...params };
    this.state.customers.set(id, customer);
    return customer;
  }

  /**
   * The customer of a checkout or portal session. A well-formed id the sandbox does not know is taken
   * on as a new customer instead of Stripe's "No such customer": the sandbox forgets everything when it
   * restarts, while the product's database still holds the customers it created.
   */
  customerForSession(id: string, param: string): CustomerRecord {
    const known = this.state.customers.get(id);
    if (known !== undefined) return known;
    if (!/^cus_[A-Za-z0-9]+$/.test(id)) throw noSuch('customer', id, param);
    return this.createCustomer({ email: null, name: null, description: null, metadata: {} }, id);
  }

  subscription(id: string): SubscriptionRecord {
    const found = this.state.subscriptions.get(id);
    if (found === undefined) throw noSuch('subscription', id, 'id');
    return found;
  }

  subscriptionJson(subscription: SubscriptionRecord): Json {
    return subscriptionJson(subscription, this.state.prices);
  }

  sessionJson(session: CheckoutSessionRecord): Json {
    return checkoutSessionJson(session, this.state.prices);
  }

  createCheckoutSession(
    params: Omit<CheckoutSessionRecord, 'id' | 'created' | 'expiresAt' | 'details' | 'status' | 'subscription' | 'url'>,
  ): CheckoutSessionRecord {
    params.lineItems.forEach((item, index) => {
      if (!this.state.prices.has(item.priceId)) throw noSuch('price', item.priceId, `line_items[${index}][price]`);
    });
    if (params.customer !== null) this.customerForSession(params.customer, 'customer');
    const id = stripeId('cs_test');
    const created = this.seconds();
    const session: CheckoutSessionRecord = {
      ...params,
      id,
      created,
      expiresAt: created + DAY,
      details: null,
      status: 'open',
      subscription: null,
      url: `${this.publicUrl}/stripe/c/pay/${id}`,
    };
    this.state.checkoutSessions.set(id, session);
    return session;
  }

  /** The session if it can still be paid; an open session past `expires_at` expires on sight. */
  checkoutSession(id: string): CheckoutSessionRecord | undefined {
    const session = this.state.checkoutSessions.get(id);
    if (session?.status === 'open' && session.expiresAt <= this.seconds()) session.status = 'expired';
    return session;
  }

  expireCheckoutSession(id: string): CheckoutSessionRecord {
    const session = this.checkoutSession(id);
    if (session === undefined) throw noSuch('checkout.session', id, 'session');
    if (session.status !== 'open')
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `Only Checkout Sessions with a status in ["open"] can be expired.`,
        'checkout_session_not_open',
      );
    session.status = 'expired';
    return session;
  }

  /**
   * What Stripe does when the customer pays on the hosted page: the customer (created now when the
   * session had none), the subscription (created `incomplete`, active once its first invoice is paid),
   * the session complete; events `customer.subscription.created`, `customer.subscription.updated` and
   * `checkout.session.completed`, in that order. Paying a completed session again changes nothing.
   */
  payCheckout(session: CheckoutSessionRecord, details: { email: string; name: string | null }): CheckoutSessionRecord {
    if (session.status !== 'open') return session;
    const customer =
      session.customer === null
        ? this.createCustomer({ email: details.email, name: details.name, description: null, metadata: {} })
        : this.customerForSession(session.customer, 'customer');
    if (customer.email === null) customer.email = details.email;
    const start = this.seconds();
    const id = stripeId('sub');
    const subscription: SubscriptionRecord = {
      id,
      customer: customer.id,
      status: 'incomplete',
      created: start,
      items: session.lineItems.map((item) => ({
        id: stripeId('si'),
        priceId: item.priceId,
        quantity: item.quantity,
        created: start,
        periodStart: start,
        periodEnd: addMonth(start),
      })),
      cancelAtPeriodEnd: false,
      cancelAt: null,
      canceledAt: null,
      endedAt: null,
      metadata: { ...session.subscriptionMetadata },
      latestInvoice: stripeId('in'),
    };
    this.state.subscriptions.set(id, subscription);
    this.emit('customer.subscription.created', this.subscriptionJson(subscription), null, PAGE_CAUSE);
    subscription.status = 'active';
    this.emit(
      'customer.subscription.updated',
      this.subscriptionJson(subscription),
      { status: 'incomplete' },
      PAGE_CAUSE,
    );
    Object.assign(session, { status: 'complete', subscription: id, customer: customer.id, details });
    this.emit('checkout.session.completed', this.sessionJson(session), null, PAGE_CAUSE);
    return session;
  }

  createPortalSession(customerId: string, returnUrl: string | null): PortalSessionRecord {
    const customer = this.customerForSession(customerId, 'customer');
    const id = stripeId('bps');
    const session = {
      id,
      created: this.seconds(),
      customer: customer.id,
      returnUrl,
      url: `${this.publicUrl}/stripe/p/session/${id}`,
    };
    this.state.portalSessions.set(id, session);
    return session;
  }

  /** `cancel_at_period_end` on or off (the portal's "Cancel plan" and "Renew plan"); `customer.subscription.updated`. */
  setCancelAtPeriodEnd(id: string, cancel: boolean, cause: EventCause = PAGE_CAUSE): SubscriptionRecord {
    const subscription = this.subscription(id);
    if (subscription.status === 'canceled')
      throw invalidParam(
        'cancel_at_period_end',
        'A canceled subscription can only update its cancellation_details and metadata.',
      );
    if (subscription.cancelAtPeriodEnd === cancel) return subscription;
    const previous = { cancel_at_period_end: subscription.cancelAtPeriodEnd, cancel_at: subscription.cancelAt };
    subscription.cancelAtPeriodEnd = cancel;
    subscription.cancelAt = cancel ? Math.max(...subscription.items.map((item) => item.periodEnd)) : null;
    subscription.canceledAt = cancel ? this.seconds() : null;
    this.emit('customer.subscription.updated', this.subscriptionJson(subscription), previous, cause);
    return subscription;
  }

  updateMetadata(id: string, metadata: Metadata): SubscriptionRecord {
    const subscription = this.subscription(id);
    subscription.metadata = Object.fromEntries(
      Object.entries({ ...subscription.metadata, ...metadata }).filter(([, value]) => value !== ''),
    );
    return subscription;
  }

  /** Cancels at once (`DELETE /v1/subscriptions/{id}`, the portal's "Cancel now"): `customer.subscription.deleted`. */
  cancelNow(id: string, cause: EventCause = PAGE_CAUSE): SubscriptionRecord {
    const subscription = this.subscription(id);
    if (subscription.status === 'canceled') return subscription;
    const now = this.seconds();
    Object.assign(subscription, {
      status: 'canceled',
      canceledAt: subscription.canceledAt ?? now,
      endedAt: now,
      cancelAt: null,
      cancelAtPeriodEnd: false,
    });
    this.emit('customer.subscription.deleted', this.subscriptionJson(subscription), null, cause);
    return subscription;
  }

  /**
   * Moves a subscription to a status as Stripe's billing would (a renewal payment failing: `past_due`,
   * then `unpaid`; paid again: `active`), for trying what the product does then. `canceled` is `cancelNow`.
   */
  setStatus(id: string, status: SubscriptionStatus): SubscriptionRecord {
    if (status === 'canceled') return this.cancelNow(id);
    const subscription = this.subscription(id);
    if (subscription.status === status) return subscription;
    const previous = { status: subscription.status };
    subscription.status = status;
    this.emit('customer.subscription.updated', this.subscriptionJson(subscription), previous, PAGE_CAUSE);
    return subscription;
  }

  private emit(type: string, object: Json, previousAttributes: Json | null, cause: EventCause): void {
    const event: EventRecord = {
      id: stripeId('evt'),
      type,
      created: this.seconds(),
      apiVersion: this.state.apiVersion,
      object: structuredClone(object),
      previousAttributes,
      request: { id: cause.requestId, idempotency_key: cause.idempotencyKey },
      deliveries: [],
      delivered: false,
    };
    this.state.events.push(event);
    this.sender.send(event);
  }
}

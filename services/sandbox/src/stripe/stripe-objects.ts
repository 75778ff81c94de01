import { randomBytes } from 'node:crypto';

/**
 * The Stripe objects the sandbox keeps, and their JSON as Stripe's API answers it (API reference,
 * "The Customer / Price / Subscription / Checkout Session / Customer portal Session / Event object",
 * and the types of stripe-node v23). Fields the sandbox never changes are answered with Stripe's
 * defaults (null, false, empty lists), so the SDK's typed objects are complete.
 */

export type Json = Record<string, unknown>;
export type Metadata = Record<string, string>;

/** Stripe's ids: a type prefix and 24 random characters (`cus_`, `sub_`, `cs_test_`...). */
export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '0').slice(0, 24)}`;
}

export interface CustomerRecord {
  id: string;
  created: number;
  email: string | null;
  name: string | null;
  description: string | null;
  metadata: Metadata;
}

export interface PriceRecord {
  id: string;
  product: string;
  productName: string;
  unitAmount: number;
  currency: string;
  interval: 'month';
  created: number;
}

export type SubscriptionStatus =
  'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
];

export interface SubscriptionItemRecord {
  id: string;
  priceId: string;
  quantity: number;
  created: number;
  periodStart: number;
  periodEnd: number;
}

export interface SubscriptionRecord {
  id: string;
  customer: string;
  status: SubscriptionStatus;
  created: number;
  items: SubscriptionItemRecord[];
  cancelAtPeriodEnd: boolean;
  cancelAt: number | null;
  canceledAt: number | null;
  endedAt: number | null;
  metadata: Metadata;
  latestInvoice: string | null;
}

export interface CheckoutSessionRecord {
  id: string;
  created: number;
  expiresAt: number;
  customer: string | null;
  customerEmail: string | null;
  /** The email and name entered on the hosted page, once paid. */
  details: { email: string; name: string | null } | null;
  lineItems: { priceId: string; quantity: number }[];
  successUrl: string;
  cancelUrl: string | null;
  clientReferenceId: string | null;
  metadata: Metadata;
  /** `subscription_data[metadata]`: copied onto the subscription the payment creates. */
  subscriptionMetadata: Metadata;
  status: 'open' | 'complete' | 'expired';
  subscription: string | null;
  url: string;
}

export interface PortalSessionRecord {
  id: string;
  created: number;
  customer: string;
  returnUrl: string | null;
  url: string;
}

export function customerJson(customer: CustomerRecord): Json {
  return {
    id: customer.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: customer.created,
    currency: null,
    default_source: null,
    delinquent: false,
    description: customer.description,
    discount: null,
    email: customer.email,
    invoice_prefix: customer.id.slice(4, 12).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: customer.metadata,
    name: customer.name,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

export function priceJson(price: PriceRecord): Json {
  return {
    id: price.id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: price.product,
    recurring: {
      interval: price.interval,
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: price.unitAmount,
    unit_amount_decimal: String(price.unitAmount),
  };
}

export function subscriptionJson(subscription: SubscriptionRecord, prices: ReadonlyMap<string, PriceRecord>): Json {
  const currency = prices.get(subscription.items[0]?.priceId ?? '')?.currency ?? 'usd';
  return {
    id: subscription.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: subscription.items[0]?.periodStart ?? subscription.created,
    billing_cycle_anchor_config: null,
    billing_thresholds: null,
    cancel_at: subscription.cancelAt,
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: subscription.canceledAt,
    cancellation_details: {
      comment: null,
      feedback: null,
      reason: subscription.canceledAt === null ? null : 'cancellation_requested',
    },
    collection_method: 'charge_automatically',
    created: subscription.created,
    currency,
    customer: subscription.customer,
    days_until_due: null,
    default_payment_method: null,
    default_source: null,
    description: null,
    discounts: [],
    ended_at: subscription.endedAt,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: subscription.items.map((item) => ({
        id: item.id,
        object: 'subscription_item',
        billing_thresholds: null,
        created: item.created,
        current_period_end: item.periodEnd,
        current_period_start: item.periodStart,
        discounts: [],
        metadata: {},
        price: priceJsonOf(prices, item.priceId),
        quantity: item.quantity,
        subscription: subscription.id,
        tax_rates: [],
      })),
      has_more: false,
      total_count: subscription.items.length,
      url: `/v1/subscription_items?subscription=${subscription.id}`,
    },
    latest_invoice: subscription.latestInvoice,
    livemode: false,
    metadata: subscription.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: null,
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: subscription.created,
    status: subscription.status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
}

function priceJsonOf(prices: ReadonlyMap<string, PriceRecord>, id: string): Json {
  const price = prices.get(id);
  return price === undefined ? { id, object: 'price' } : priceJson(price);
}

export function checkoutSessionJson(session: CheckoutSessionRecord, prices: ReadonlyMap<string, PriceRecord>): Json {
  const amount = session.lineItems.reduce(
    (sum, item) => sum + (prices.get(item.priceId)?.unitAmount ?? 0) * item.quantity,
    0,
  );
  const currency = prices.get(session.lineItems[0]?.priceId ?? '')?.currency ?? 'usd';
  return {
    id: session.id,
    object: 'checkout.session',
    allow_promotion_codes: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: session.cancelUrl,
    client_reference_id: session.clientReferenceId,
    client_secret: null,
    created: session.created,
    currency,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: session.customer,
    customer_creation: session.customer === null ? 'always' : null,
    customer_details:
      session.details === null
        ? null
        : {
            address: null,
            email: session.details.email,
            name: session.details.name,
            phone: null,
            tax_exempt: 'none',
            tax_ids: [],
          },
    customer_email: session.customerEmail,
    discounts: [],
    expires_at: session.expiresAt,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: session.metadata,
    mode: 'subscription',
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_types: ['card'],
    payment_status: session.status === 'complete' ? 'paid' : 'unpaid',
    recovered_from: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: session.status,
    submit_type: null,
    subscription: session.subscription,
    success_url: session.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: session.status === 'open' ? session.url : null,
  };
}

export function portalSessionJson(session: PortalSessionRecord): Json {
  return {
    id: session.id,
    object: 'billing_portal.session',
    configuration: 'bpc_sandbox_default',
    created: session.created,
    customer: session.customer,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: session.returnUrl,
    url: session.url,
  };
}

export function listJson(url: string, data: Json[], hasMore = false): Json {
  return { object: 'list', data, has_more: hasMore, url };
}

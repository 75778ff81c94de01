// A small stand-in for Stripe's API, speaking what the official SDK sends (form-encoded bodies with
// bracketed keys, Bearer secret key, Idempotency-Key) and answering in Stripe's response and error
// shapes, for the endpoints billing calls: customers, checkout sessions, billing-portal sessions and
// subscription retrieval. Tests drive subscriptions through it and sign webhooks with the SDK.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  body: Json;
  idempotencyKey: string | undefined;
  replayed: boolean;
}

export interface StripeStandIn {
  baseUrl: string;
  apiKey: string;
  priceId: string;
  webhookSecret: string;
  requests: RecordedRequest[];
  customers: Map<string, Json>;
  sessions: Map<string, Json>;
  subscriptions: Map<string, Json>;
  /** Makes the next `count` API calls fail with a Stripe api_error of this status. */
  failNext(count: number, status: number): void;
  /** What Stripe does when the customer pays: an active subscription (to `priceId`, the plan's by default), the session complete. */
  completeCheckout(sessionId: string, options?: { priceId?: string }): { session: Json; subscription: Json };
  /**
   * An active subscription made outside this service's checkout (the Dashboard, a Payment Link, another
   * product on the same Stripe account), for a customer billing may never have seen.
   */
  createSubscription(options: { customer: string; metadata?: Json; priceId?: string }): Json;
  /** Changes a subscription as Stripe would (status, cancel_at_period_end). */
  updateSubscription(id: string, changes: { status?: string; cancel_at_period_end?: boolean }): Json;
  /** A webhook as Stripe sends it: the event JSON and its Stripe-Signature header (made by the SDK). */
  webhook(
    type: string,
    object: Json,
    options?: { id?: string; created?: number; secret?: string },
  ): { payload: string; signature: string; id: string };
  close(): Promise<void>;
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** `line_items[0][price]=p&metadata[org_id]=o` -> `{line_items: [{price: 'p'}], metadata: {org_id: 'o'}}` */
export function parseStripeForm(body: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Json = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Json;
    });
  }
  return arrays(root) as Json;
}

function arrays(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Json).map(([key, inner]) => [key, arrays(inner)] as const);
  if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key)))
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, inner]) => inner);
  return Object.fromEntries(entries);
}

function stripeError(status: number, type: string, message: string, extra: Json = {}) {
  return { status, body: { error: { type, message, ...extra } } };
}

export async function startStripeStandIn(options: { apiKey?: string; priceId?: string } = {}): Promise<StripeStandIn> {
  const apiKey = options.apiKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const priceId = options.priceId ?? 'price_pro_monthly';
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  const customers = new Map<string, Json>();
  const sessions = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const idempotent = new Map<string, { body: string; response: { status: number; body: Json } }>();
  let faults: { count: number; status: number } = { count: 0, status: 500 };
  let baseUrl = '';

  const price = (id = priceId) => ({
    id,
    object: 'price',
    active: true,
    currency: 'usd',
    unit_amount: 2900,
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
    product: 'prod_pro',
    livemode: false,
    metadata: {},
  });

  function createCustomer(body: Json): Json {
    const customer = {
      id: newId('cus'),
      object: 'customer',
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: body.description ?? null,
      email: body.email ?? null,
      invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: body.metadata ?? {},
      name: body.name ?? null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    };
    customers.set(customer.id, customer);
    return customer;
  }

  function createSubscription(customer: string, metadata: Json, subscribedPrice?: string): Json {
    const id = newId('sub');
    const start = now();
    const subscription: Json = {
      id,
      object: 'subscription',
      customer,
      status: 'active',
      created: start,
      start_date: start,
      billing_cycle_anchor: start,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      collection_method: 'charge_automatically',
      currency: 'usd',
      latest_invoice: newId('in'),
      livemode: false,
      metadata,
      items: {
        object: 'list',
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${id}`,
        data: [
          {
            id: newId('si'),
            object: 'subscription_item',
            created: start,
            current_period_start: start,
            current_period_end: start + 30 * 86_400,
            metadata: {},
            price: price(subscribedPrice),
            quantity: 1,
            subscription: id,
          },
        ],
      },
    };
    subscriptions.set(id, subscription);
    return subscription;
  }

  function createSession(body: Json): { status: number; body: Json } {
    const items = (body.line_items ?? []) as Json[];
    if (body.mode !== 'subscription')
      return stripeError(400, 'invalid_request_error', 'This stand-in only creates subscription-mode sessions.', {
        param: 'mode',
      });
    if (typeof body.customer !== 'string' || !customers.has(body.customer))
      return stripeError(400, 'invalid_request_error', `No such customer: '${String(body.customer)}'`, {
        code: 'resource_missing',
        param: 'customer',
      });
    if (items[0]?.price !== priceId)
      return stripeError(400, 'invalid_request_error', `No such price: '${String(items[0]?.price)}'`, {
        code: 'resource_missing',
        param: 'line_items[0][price]',
      });
    for (const field of ['success_url', 'cancel_url'])
      if (typeof body[field] !== 'string')
        return stripeError(400, 'invalid_request_error', `Missing required param: ${field}.`, {
          code: 'parameter_missing',
          param: field,
        });
    const id = newId('cs_test');
    const session = {
      id,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: body.customer,
      client_reference_id: body.client_reference_id ?? null,
      metadata: body.metadata ?? {},
      subscription: null,
      success_url: body.success_url,
      cancel_url: body.cancel_url,
      url: `${baseUrl}/c/pay/${id}`,
      created: now(),
      expires_at: now() + 86_400,
      livemode: false,
      currency: 'usd',
      amount_total: 2900,
      subscription_data_metadata: (body.subscription_data as Json | undefined)?.metadata ?? {},
    };
    sessions.set(id, session);
    const { subscription_data_metadata: _hidden, ...visible } = session;
    return { status: 200, body: visible };
  }

  function createPortal(body: Json): { status: number; body: Json } {
    if (typeof body.customer !== 'string' || !customers.has(body.customer))
      return stripeError(400, 'invalid_request_error', `No such customer: '${String(body.customer)}'`, {
        code: 'resource_missing',
        param: 'customer',
      });
    const id = newId('bps');
    return {
      status: 200,
      body: {
        id,
        object: 'billing_portal.session',
        configuration: 'bpc_default',
        created: now(),
        customer: body.customer,
        flow: null,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: body.return_url ?? null,
        url: `${baseUrl}/p/session/${id}`,
      },
    };
  }

  function route(method: string, path: string, body: Json): { status: number; body: Json } {
    if (method === 'POST' && path === '/v1/customers') return { status: 200, body: createCustomer(body) };
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(body);
    if (method === 'POST' && path === '/v1/billing_portal/sessions') return createPortal(body);
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (method === 'GET' && subscription !== null) {
      const found = subscriptions.get(decodeURIComponent(subscription[1]!));
      return found === undefined
        ? stripeError(404, 'invalid_request_error', `No such subscription: '${subscription[1]}'`, {
            code: 'resource_missing',
            param: 'id',
          })
        : { status: 200, body: found };
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://stripe.local');
      const key = req.headers['idempotency-key'] as string | undefined;
      const answer = (status: number, body: Json, replayed = false) => {
        requests.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          body: parseStripeForm(raw),
          idempotencyKey: key,
          replayed,
        });
        res.writeHead(status, {
          'content-type': 'application/json',
          'request-id': newId('req'),
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        const shown = String(req.headers.authorization ?? '')
          .replace(/^Bearer /, '')
          .slice(0, 8);
        const { status, body } = stripeError(401, 'invalid_request_error', `Invalid API Key provided: ${shown}****`);
        answer(status, body);
        return;
      }
      if (faults.count > 0) {
        faults.count -= 1;
        const { status, body } = stripeError(faults.status, 'api_error', 'An unknown error occurred.');
        answer(status, body);
        return;
      }
      const previous = key === undefined ? undefined : idempotent.get(key);
      if (previous !== undefined) {
        if (previous.body !== raw) {
          const { status, body } = stripeError(
            400,
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
          );
          answer(status, body);
          return;
        }
        answer(previous.response.status, previous.response.body, true);
        return;
      }
      const response = route(req.method ?? 'GET', url.pathname, parseStripeForm(raw));
      if (key !== undefined && req.method === 'POST') idempotent.set(key, { body: raw, response });
      answer(response.status, response.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    apiKey,
    priceId,
    webhookSecret,
    requests,
    customers,
    sessions,
    subscriptions,
    failNext: (count, status) => {
      faults = { count, status };
    },
    completeCheckout: (sessionId, checkoutOptions = {}) => {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new Error(`no checkout session ${sessionId}`);
      const subscription = createSubscription(
        session.customer as string,
        session.subscription_data_metadata as Json,
        checkoutOptions.priceId,
      );
      Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription.id });
      const { subscription_data_metadata: _hidden, ...visible } = session;
      return { session: visible, subscription };
    },
    createSubscription: (subscriptionOptions) =>
      createSubscription(subscriptionOptions.customer, subscriptionOptions.metadata ?? {}, subscriptionOptions.priceId),
    updateSubscription: (id, changes) => {
      const subscription = subscriptions.get(id);
      if (subscription === undefined) throw new Error(`no subscription ${id}`);
      Object.assign(subscription, changes);
      if (changes.status === 'canceled') Object.assign(subscription, { canceled_at: now(), ended_at: now() });
      return subscription;
    },
    webhook: (type, object, opts = {}) => {
      const id = opts.id ?? newId('evt');
      const payload = JSON.stringify(
        {
          id,
          object: 'event',
          api_version: Stripe.API_VERSION,
          created: opts.created ?? now(),
          data: { object },
          livemode: false,
          pending_webhooks: 1,
          request: { id: null, idempotency_key: null },
          type,
        },
        null,
        2,
      );
      return {
        payload,
        id,
        signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? webhookSecret }),
      };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

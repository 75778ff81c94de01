// The sandbox with its Stripe on, listening on an ephemeral port (the SDK needs a real host and port),
// and a webhook endpoint that records what the sandbox delivers, verified as billing verifies it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { createSandboxApp, type StripeSandboxOptions } from '../../src/app.ts';

export interface ReceivedWebhook {
  event: Stripe.Event;
  signature: string;
  userAgent: string | undefined;
}

export interface StripeSandbox {
  baseUrl: string;
  secret: string;
  apiKey: string;
  stripe: Stripe;
  /** Every delivery the endpoint accepted, in arrival order, already verified with the SDK. */
  received: ReceivedWebhook[];
  /** The next `count` deliveries are answered with this status instead of 200. */
  refuseNext(count: number, status: number): void;
  control(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startStripeSandbox(options: Partial<StripeSandboxOptions> = {}): Promise<StripeSandbox> {
  const secret = 'whsec_sandboxtestsecret0123456789';
  const received: ReceivedWebhook[] = [];
  let refusals = { count: 0, status: 500 };
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (refusals.count > 0) {
        refusals.count -= 1;
        res.writeHead(refusals.status).end();
        return;
      }
      const signature = String(req.headers['stripe-signature']);
      try {
        const event = Stripe.webhooks.constructEvent(Buffer.concat(chunks), signature, secret, 300);
        received.push({ event, signature, userAgent: req.headers['user-agent'] });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      } catch {
        // As billing answers a bad signature: the sandbox records a failed delivery and retries.
        res.writeHead(400).end();
      }
    });
  });
  const webhookUrl = `${await listen(receiver)}/v1/billing/webhook`;
  const server = createServer();
  const baseUrl = await listen(server);
  server.on(
    'request',
    createSandboxApp({
      publicUrl: baseUrl,
      allowPrivateUrls: true,
      stripe: { webhookUrl, webhookSecret: secret, retryDelaysMs: [20, 20], ...options },
    }),
  );
  const apiKey = 'sk_test_sandbox0123456789';
  const url = new URL(baseUrl);
  const stripe = new Stripe(apiKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    maxNetworkRetries: 0,
  });
  return {
    baseUrl,
    secret,
    apiKey,
    stripe,
    received,
    refuseNext: (count, status) => {
      refusals = { count, status };
    },
    control: (method, path, body) =>
      fetch(`${baseUrl}/__sandbox/stripe${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    close: async () => {
      await fetch(`${baseUrl}/__sandbox/stripe/reset`, { method: 'POST' });
      await close(server);
      await close(receiver);
    },
  };
}

/** The hosted Checkout form, filled in and posted as a browser posts it; the redirect is not followed. */
export function payCheckout(url: string, fields: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      email: 'owner@example.com',
      cardholder_name: 'Ada Owner',
      card_number: '4242 4242 4242 4242',
      card_expiry: '12 / 40',
      card_cvc: '123',
      ...fields,
    }).toString(),
  });
}

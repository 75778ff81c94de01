import { urlencoded, type Request, type Response, type Router } from 'express';
import { checkPayment, type FieldProblem, type PaymentField, type PaymentForm } from './card-check.ts';
import { type StripeAccount } from './stripe-account.ts';
import { type CheckoutSessionRecord } from './stripe-objects.ts';
import { escapeHtml, formatAmount, messagePage, pageHtml } from './stripe-pages.ts';

const FIELDS: { name: PaymentField; label: string; hint?: string; attributes: string }[] = [
  { name: 'email', label: 'Email', attributes: 'type="email" autocomplete="email" required' },
  { name: 'cardholder_name', label: 'Name on card', attributes: 'type="text" autocomplete="cc-name"' },
  {
    name: 'card_number',
    label: 'Card number',
    hint: 'Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.',
    attributes: 'type="text" inputmode="numeric" autocomplete="cc-number" required',
  },
  {
    name: 'card_expiry',
    label: 'Expiration date',
    hint: 'MM / YY, any future month.',
    attributes: 'type="text" inputmode="numeric" autocomplete="cc-exp" required',
  },
  {
    name: 'card_cvc',
    label: 'Security code (CVC)',
    hint: 'Any 3 digits.',
    attributes: 'type="text" inputmode="numeric" autocomplete="cc-csc" required',
  },
];

function formOf(body: unknown): PaymentForm {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (name: PaymentField) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
  return {
    email: text('email'),
    cardholder_name: text('cardholder_name'),
    card_number: text('card_number'),
    card_expiry: text('card_expiry'),
    card_cvc: text('card_cvc'),
  };
}

/** Where Stripe sends the browser after paying: `{CHECKOUT_SESSION_ID}` in success_url becomes the session's id. */
function successUrlOf(session: CheckoutSessionRecord): string {
  return session.successUrl.replaceAll('{CHECKOUT_SESSION_ID}', session.id);
}

function checkoutHtml(
  account: StripeAccount,
  session: CheckoutSessionRecord,
  values: PaymentForm,
  problems: FieldProblem[],
  declined: string | null,
): string {
  const prices = session.lineItems.map((item) => ({ item, price: account.state.prices.get(item.priceId) }));
  const lines = prices
    .map(({ item, price }) =>
      price === undefined
        ? ''
        : `<li>${escapeHtml(price.productName)}${item.quantity > 1 ? ` × ${item.quantity}` : ''}: ${escapeHtml(formatAmount(price.unitAmount * item.quantity, price.currency))} per ${price.interval}</li>`,
    )
    .join('\n');
  const errors = [...problems.map((problem) => ({ href: `#${problem.field}`, message: problem.message }))];
  if (declined !== null) errors.push({ href: '#card_number', message: declined });
  const summary =
    errors.length === 0
      ? ''
      : `<div class="problem" role="alert" tabindex="-1" id="problems"><h2>The payment did not go through</h2><ul>${errors
          .map((error) => `<li><a href="${error.href}">${escapeHtml(error.message)}</a></li>`)
          .join('')}</ul></div>`;
  const inputs = FIELDS.map((field) => {
    const problem = problems.find((candidate) => candidate.field === field.name);
    const describedBy = [
      field.hint === undefined ? null : `${field.name}-hint`,
      problem === undefined ? null : `${field.name}-error`,
    ]
      .filter(Boolean)
      .join(' ');
    const value = field.name === 'email' && values.email === '' ? (session.customerEmail ?? '') : values[field.name];
    return `<label for="${field.name}">${field.label}</label>
${field.hint === undefined ? '' : `<span class="hint" id="${field.name}-hint">${escapeHtml(field.hint)}</span>`}
${problem === undefined ? '' : `<span class="field-error" id="${field.name}-error">${escapeHtml(problem.message)}</span>`}
<input id="${field.name}" name="${field.name}" ${field.attributes} value="${escapeHtml(value)}"${describedBy === '' ? '' : ` aria-describedby="${describedBy}"`}${problem === undefined ? '' : ' aria-invalid="true"'}>`;
  }).join('\n');
  const cancel =
    session.cancelUrl === null ? '' : `<p><a href="${escapeHtml(session.cancelUrl)}">Cancel and return</a></p>`;
  return pageHtml(
    'Subscribe – Checkout',
    `<h1>Subscribe</h1>
<ul>${lines}</ul>
${summary}
<form method="post" action="/stripe/c/pay/${escapeHtml(session.id)}" novalidate>
${inputs}
<button type="submit">Subscribe</button>
</form>
${cancel}`,
  );
}

/**
 * The hosted Checkout page (`checkout.stripe.com/c/pay/{session}` at Stripe): a card form for an open
 * subscription session. Paying completes the session (`StripeAccount.payCheckout`, which sends the
 * webhooks) and redirects (303) to the session's success_url; bad input answers 400 and a declined
 * test card 402, each with the form again and its problems listed.
 */
export function registerCheckoutPage(router: Router, account: StripeAccount): void {
  const unavailable = (res: Response, session: CheckoutSessionRecord | undefined) => {
    if (session === undefined)
      return void res
        .status(404)
        .type('html')
        .send(messagePage('Checkout not found', 'This checkout link is not valid.'));
    if (session.status === 'complete') return void res.redirect(303, successUrlOf(session));
    const back = session.cancelUrl === null ? undefined : { href: session.cancelUrl, text: 'Return' };
    res
      .status(410)
      .type('html')
      .send(messagePage('Checkout expired', 'This checkout session has expired.', back));
  };

  router.get('/c/pay/:id', (req: Request, res: Response) => {
    const session = account.checkoutSession(String(req.params.id));
    if (session?.status !== 'open') return unavailable(res, session);
    res.type('html').send(checkoutHtml(account, session, formOf({}), [], null));
  });

  router.post('/c/pay/:id', urlencoded({ extended: false, limit: '16kb' }), (req: Request, res: Response) => {
    const session = account.checkoutSession(String(req.params.id));
    if (session?.status !== 'open') return unavailable(res, session);
    const form = formOf(req.body);
    const check = checkPayment(form, new Date());
    if (check.outcome === 'invalid')
      return void res
        .status(400)
        .type('html')
        .send(checkoutHtml(account, session, form, check.problems, null));
    if (check.outcome === 'declined')
      return void res
        .status(402)
        .type('html')
        .send(checkoutHtml(account, session, form, [], check.message));
    account.payCheckout(session, { email: form.email.trim(), name: form.cardholder_name.trim() || null });
    res.redirect(303, successUrlOf(session));
  });
}

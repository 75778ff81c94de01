import { urlencoded, type Request, type Response, type Router } from 'express';
import { type StripeAccount } from './stripe-account.ts';
import { StripeApiError } from './stripe-errors.ts';
import { type PortalSessionRecord, type SubscriptionRecord } from './stripe-objects.ts';
import { escapeHtml, formatAmount, formatDate, messagePage, pageHtml } from './stripe-pages.ts';

const ACTIONS = {
  cancel_at_period_end: 'Your plan will be canceled at the end of the billing period.',
  renew: 'Your plan will renew.',
  cancel_now: 'Your plan has been canceled.',
} as const;
type Action = keyof typeof ACTIONS;
const isAction = (value: unknown): value is Action => typeof value === 'string' && value in ACTIONS;

function statusLine(subscription: SubscriptionRecord): string {
  const periodEnd = Math.max(...subscription.items.map((item) => item.periodEnd));
  if (subscription.status === 'canceled') return 'Canceled.';
  if (subscription.cancelAtPeriodEnd) return `Cancels on ${formatDate(periodEnd)}.`;
  if (subscription.status === 'past_due') return 'Past due: the last payment failed.';
  return `Status: ${subscription.status}. Renews on ${formatDate(periodEnd)}.`;
}

function actionButton(
  session: PortalSessionRecord,
  subscription: SubscriptionRecord,
  action: Action,
  label: string,
  secondary = false,
): string {
  return `<form class="inline" method="post" action="/stripe/p/session/${escapeHtml(session.id)}/subscriptions/${escapeHtml(subscription.id)}">
<input type="hidden" name="action" value="${action}">
<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button>
</form>`;
}

function subscriptionHtml(
  account: StripeAccount,
  session: PortalSessionRecord,
  subscription: SubscriptionRecord,
): string {
  const items = subscription.items
    .map((item) => {
      const price = account.state.prices.get(item.priceId);
      return price === undefined
        ? `<li>${escapeHtml(item.priceId)}</li>`
        : `<li>${escapeHtml(price.productName)}: ${escapeHtml(formatAmount(price.unitAmount * item.quantity, price.currency))} per ${price.interval}</li>`;
    })
    .join('');
  const live = subscription.status !== 'canceled';
  const actions = !live
    ? ''
    : subscription.cancelAtPeriodEnd
      ? actionButton(session, subscription, 'renew', 'Renew plan') +
        actionButton(session, subscription, 'cancel_now', 'Cancel now', true)
      : actionButton(session, subscription, 'cancel_at_period_end', 'Cancel plan', true) +
        actionButton(session, subscription, 'cancel_now', 'Cancel now', true);
  return `<section aria-labelledby="${escapeHtml(subscription.id)}-title">
<h2 id="${escapeHtml(subscription.id)}-title">Subscription</h2>
<ul>${items}</ul>
<p>${escapeHtml(statusLine(subscription))}</p>
${actions}
</section>`;
}

/**
 * The hosted customer portal (`billing.stripe.com/p/session/{session}` at Stripe): the customer's
 * subscriptions, with "Cancel plan" (at the period's end), "Renew plan" and "Cancel now", each sending
 * the webhook Stripe sends (`customer.subscription.updated` or `.deleted`), and the way back to the
 * session's return_url.
 */
export function registerPortalPage(router: Router, account: StripeAccount): void {
  const sessionOf = (req: Request, res: Response): PortalSessionRecord | undefined => {
    const session = account.state.portalSessions.get(String(req.params.id));
    if (session === undefined)
      res.status(404).type('html').send(messagePage('Session not found', 'This billing portal link is not valid.'));
    return session;
  };

  router.get('/p/session/:id', (req: Request, res: Response) => {
    const session = sessionOf(req, res);
    if (session === undefined) return;
    const customer = account.state.customers.get(session.customer);
    const subscriptions = [...account.state.subscriptions.values()].filter(
      (subscription) => subscription.customer === session.customer,
    );
    const notice = isAction(req.query.done) ? `<p class="notice" role="status">${ACTIONS[req.query.done]}</p>` : '';
    const back =
      session.returnUrl === null ? '' : `<p><a href="${escapeHtml(session.returnUrl)}">Return to the product</a></p>`;
    res.type('html').send(
      pageHtml(
        'Manage your subscription',
        `<h1>Manage your subscription</h1>
${customer?.email == null ? '' : `<p>Signed in as ${escapeHtml(customer.email)}.</p>`}
${notice}
${subscriptions.length === 0 ? '<p>No subscriptions.</p>' : subscriptions.map((subscription) => subscriptionHtml(account, session, subscription)).join('\n')}
${back}`,
      ),
    );
  });

  router.post(
    '/p/session/:id/subscriptions/:subscription',
    urlencoded({ extended: false, limit: '4kb' }),
    (req: Request, res: Response) => {
      const session = sessionOf(req, res);
      if (session === undefined) return;
      const subscription = account.state.subscriptions.get(String(req.params.subscription));
      const action = (req.body as Record<string, unknown> | undefined)?.action;
      if (subscription?.customer !== session.customer)
        return void res
          .status(404)
          .type('html')
          .send(messagePage('Subscription not found', 'This customer has no such subscription.'));
      if (!isAction(action))
        return void res
          .status(400)
          .type('html')
          .send(messagePage('Unknown action', 'Choose cancel, renew or cancel now.'));
      try {
        if (action === 'cancel_now') account.cancelNow(subscription.id);
        else account.setCancelAtPeriodEnd(subscription.id, action === 'cancel_at_period_end');
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        return void res.status(409).type('html').send(messagePage('Not possible', error.message));
      }
      res.redirect(303, `/stripe/p/session/${encodeURIComponent(session.id)}?done=${action}`);
    },
  );
}

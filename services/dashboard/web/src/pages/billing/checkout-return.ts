// What the Usage and billing page says when Stripe's hosted Checkout sends the browser back:
// BILLING_SUCCESS_URL is `<dashboard>/billing?checkout=success`, BILLING_CANCEL_URL
// `<dashboard>/billing?checkout=canceled` (docs/dashboard.md).

export type CheckoutOutcome = 'success' | 'canceled';

/** The outcome a `checkout` query value names; anything else is an ordinary visit. */
export function checkoutOutcomeOf(value: string | null): CheckoutOutcome | undefined {
  return value === 'success' || value === 'canceled' ? value : undefined;
}

/** Time between reads of the subscription while a paid checkout waits for Stripe's webhook. */
export const CONFIRM_POLL_MS = 2000;
/**
 * Reads before the page stops asking (about two minutes): Stripe confirms within seconds, and past
 * that a person is better told to come back than shown a page that polls forever.
 */
export const CONFIRM_MAX_POLLS = 60;

/**
 * When to read the subscription again: only after a paid checkout, while the plan has not become the
 * paid one, and no more than CONFIRM_MAX_POLLS times (`polls`: reads since the page opened).
 */
export function confirmPollDelay(
  outcome: CheckoutOutcome | undefined,
  plan: string | undefined,
  polls: number,
): number | false {
  return outcome === 'success' && plan !== 'pro' && polls < CONFIRM_MAX_POLLS ? CONFIRM_POLL_MS : false;
}

export interface CheckoutNotice {
  color: 'blue' | 'green' | 'yellow' | 'gray';
  text: string;
  /** Still waiting for Stripe: the upgrade button stays hidden, so nobody pays twice. */
  pending: boolean;
}

/**
 * The sentence for the return from Checkout. The plan changes only when Stripe's signed webhook has
 * reached billing, which may be after the browser is back: until then the page says the upgrade was
 * received, never that it is done.
 */
export function checkoutNotice(
  outcome: CheckoutOutcome | undefined,
  plan: string | undefined,
  polls: number,
): CheckoutNotice | undefined {
  if (outcome === 'canceled')
    return { color: 'gray', text: 'Checkout canceled: nothing was charged and the plan is unchanged.', pending: false };
  if (outcome !== 'success' || plan === undefined) return undefined;
  if (plan === 'pro')
    return { color: 'green', text: 'Upgrade confirmed: this organization is on the Pro plan.', pending: false };
  if (polls < CONFIRM_MAX_POLLS)
    return {
      color: 'blue',
      text: 'Upgrade received. The plan updates when Stripe confirms the payment, usually within seconds.',
      pending: true,
    };
  return {
    color: 'yellow',
    text: 'Stripe has not confirmed the payment yet. Reload this page in a few minutes to see the plan; you will not be charged twice.',
    pending: true,
  };
}

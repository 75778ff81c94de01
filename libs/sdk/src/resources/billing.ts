// The organization's plan (dashboard JWT only).
import type { RequestOptions, Call } from '../call.ts';

export function billingResource(call: Call) {
  return {
    /** Plan, status, period end and usage against each limit. */
    subscription: (options?: RequestOptions) => call('getBillingSubscription', { ...options }),
    /** A hosted Stripe Checkout session for the paid plan. */
    checkout: (options?: RequestOptions) => call('createCheckout', { ...options }),
    /** A Stripe customer-portal session. */
    portal: (options?: RequestOptions) => call('createBillingPortal', { ...options }),
  };
}

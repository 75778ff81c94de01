import {
  CONFIRM_MAX_POLLS,
  CONFIRM_POLL_MS,
  checkoutNotice,
  checkoutOutcomeOf,
  confirmPollDelay,
} from './checkout-return.ts';

describe('the return from Checkout', () => {
  it('knows the two outcomes Checkout returns with, and nothing else', () => {
    expect(checkoutOutcomeOf('success')).toBe('success');
    expect(checkoutOutcomeOf('canceled')).toBe('canceled');
    for (const value of [null, '', 'SUCCESS', 'cancelled', 'paid']) expect(checkoutOutcomeOf(value)).toBeUndefined();
  });

  it('says the upgrade was received, not done, until the plan is the paid one', () => {
    expect(checkoutNotice('success', 'free', 0)).toEqual({
      color: 'blue',
      text: expect.stringMatching(/^Upgrade received\. The plan updates when Stripe confirms/),
      pending: true,
    });
    expect(checkoutNotice('success', 'pro', 3)).toEqual({
      color: 'green',
      text: 'Upgrade confirmed: this organization is on the Pro plan.',
      pending: false,
    });
  });

  it('says nothing before the subscription is known, or on an ordinary visit', () => {
    expect(checkoutNotice('success', undefined, 0)).toBeUndefined();
    expect(checkoutNotice(undefined, 'free', 0)).toBeUndefined();
    expect(checkoutNotice(undefined, 'pro', 0)).toBeUndefined();
  });

  it('says a canceled checkout charged nothing, whatever the plan', () => {
    for (const plan of [undefined, 'free', 'pro'])
      expect(checkoutNotice('canceled', plan, 0)).toEqual({
        color: 'gray',
        text: 'Checkout canceled: nothing was charged and the plan is unchanged.',
        pending: false,
      });
  });

  it('reads the plan again only after a paid checkout that is not confirmed yet, a bounded number of times', () => {
    expect(confirmPollDelay('success', 'free', 0)).toBe(CONFIRM_POLL_MS);
    expect(confirmPollDelay('success', undefined, 0)).toBe(CONFIRM_POLL_MS);
    expect(confirmPollDelay('success', 'free', CONFIRM_MAX_POLLS - 1)).toBe(CONFIRM_POLL_MS);
    expect(confirmPollDelay('success', 'free', CONFIRM_MAX_POLLS)).toBe(false);
    expect(confirmPollDelay('success', 'pro', 0)).toBe(false);
    expect(confirmPollDelay('canceled', 'free', 0)).toBe(false);
    expect(confirmPollDelay(undefined, 'free', 0)).toBe(false);
  });

  it('tells the person to come back later once it stops asking, still without offering to pay again', () => {
    expect(checkoutNotice('success', 'free', CONFIRM_MAX_POLLS)).toEqual({
      color: 'yellow',
      text: expect.stringMatching(/^Stripe has not confirmed the payment yet\. Reload this page/),
      pending: true,
    });
  });
});

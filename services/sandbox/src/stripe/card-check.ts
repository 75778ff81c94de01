/**
 * What the hosted Checkout page checks of what was typed, before "paying": the fields a card form
 * needs, in the messages Stripe's own form shows, and Stripe's test cards: 4242 4242 4242 4242 pays,
 * 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds (Stripe's docs,
 * "Testing"). No card is charged and none is stored.
 */

export interface PaymentForm {
  email: string;
  cardholder_name: string;
  card_number: string;
  card_expiry: string;
  card_cvc: string;
}

export type PaymentField = keyof PaymentForm;

export interface FieldProblem {
  field: PaymentField;
  message: string;
}

export type PaymentCheck =
  { outcome: 'paid' } | { outcome: 'invalid'; problems: FieldProblem[] } | { outcome: 'declined'; message: string };

const DECLINES: Record<string, string> = {
  '4000000000000002': 'Your card was declined.',
  '4000000000009995': 'Your card has insufficient funds.',
};

function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** `MM / YY`, `MM/YY` or `MMYY`, not before the current month (UTC). */
function expiryProblem(value: string, now: Date): string | null {
  const match = /^(\d{2})\s*\/?\s*(\d{2})$/.exec(value.trim());
  if (match === null) return "Your card's expiration date is incomplete.";
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  if (month < 1 || month > 12) return "Your card's expiration date is invalid.";
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + month - 1 < current) return "Your card's expiration year is in the past.";
  return null;
}

export function checkPayment(form: PaymentForm, now: Date): PaymentCheck {
  const problems: FieldProblem[] = [];
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(form.email.trim()))
    problems.push({ field: 'email', message: 'Your email address is invalid.' });
  const digits = form.card_number.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(digits)) problems.push({ field: 'card_number', message: 'Your card number is incomplete.' });
  else if (!luhn(digits)) problems.push({ field: 'card_number', message: 'Your card number is invalid.' });
  const expiry = expiryProblem(form.card_expiry, now);
  if (expiry !== null) problems.push({ field: 'card_expiry', message: expiry });
  if (!/^\d{3,4}$/.test(form.card_cvc.trim()))
    problems.push({ field: 'card_cvc', message: "Your card's security code is incomplete." });
  if (problems.length > 0) return { outcome: 'invalid', problems };
  const decline = DECLINES[digits];
  return decline === undefined ? { outcome: 'paid' } : { outcome: 'declined', message: decline };
}

import { AppError } from '@svc/errors';

/** The dashboard's errors, each a public code of @svc/errors with a message for the person at the browser. */
export const dashboardErrors = {
  signInRequired: () => new AppError('unauthorized', 'Sign in first: the session is missing or has ended.'),
  wrongCredentials: () => new AppError('unauthorized', 'The email or password is wrong.'),
  csrfRejected: () =>
    new AppError('forbidden', "The request lacks the session's CSRF token (X-CSRF-Token header) or it is wrong."),
  foreignOrigin: () => new AppError('forbidden', 'The request comes from another site (its Origin header).'),
  emailTaken: () => new AppError('conflict', 'An account with this email already exists; sign in instead.'),
  notAMember: () => new AppError('forbidden', 'You are not a member of this organization.'),
  ownerOnly: (what: string) => new AppError('forbidden', `Only an owner of the organization can ${what}.`),
  noActiveOrg: () => new AppError('forbidden', 'Choose an organization first (POST /auth/switch-org).'),
  lastOwner: () =>
    new AppError('conflict', 'The last owner of an organization cannot be removed; make another member owner first.'),
  inviteUnusable: () =>
    new AppError('not_found', 'The invite link is unknown, already used or expired; ask for a new one.'),
  memberNotFound: () => new AppError('not_found', 'The organization has no such member.'),
  throttled: (what: string, seconds: number) =>
    new AppError('rate_limited', `Too many ${what}; retry in ${seconds} s.`, {
      retryable: true,
      headers: { 'Retry-After': String(seconds) },
    }),
};

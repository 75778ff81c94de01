// The session's CSRF token, from the session view (GET /auth/me, sign-in, sign-up). Every
// state-changing request to /api and /auth sends it as X-CSRF-Token.
let current: string | null = null;

export function setCsrfToken(token: string | null): void {
  current = token;
}

export function csrfHeaders(): Record<string, string> {
  return current === null ? {} : { 'X-CSRF-Token': current };
}

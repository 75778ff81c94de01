import { createClient, type FetchLike } from '@svc/sdk';
import { csrfHeaders } from './csrf.ts';

/**
 * The fetch the SDK uses: same-origin (the session cookie goes along) with the CSRF header. The
 * dashboard service forwards /api/* to the gateway with a JWT the page never sees.
 */
export const dashboardFetch: FetchLike = (request) => {
  const headers = new Headers(request.headers);
  for (const [name, value] of Object.entries(csrfHeaders())) headers.set(name, value);
  return fetch(new Request(request, { headers, credentials: 'same-origin' }));
};

export function apiClient(fetchImpl: FetchLike = dashboardFetch) {
  return createClient({
    baseUrl: `${window.location.origin}/api`,
    fetch: fetchImpl,
    // A person is waiting: a short retry budget, then the error is shown.
    retry: { maxAttempts: 2, baseDelayMs: 300, maxDelayMs: 2000, maxElapsedMs: 8000 },
  });
}

/** The one client of the pages. */
export const api = apiClient();

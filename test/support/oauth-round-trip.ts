import request from 'supertest';

type App = Parameters<typeof request>[0];

/**
 * What a dashboard user's browser does to connect an account: start (which sets the flow cookie),
 * follow the network's consent redirect, and come back to the callback with the cookie.
 */
export async function oauthRoundTrip(gateway: App, auth: string, network: string): Promise<request.Response> {
  const start = await request(gateway).get(`/v1/oauth/${network}/start`).set('Authorization', auth);
  if (start.status !== 200) throw new Error(`OAuth start answered ${start.status}: ${JSON.stringify(start.body)}`);
  const cookie = ([] as string[]).concat(start.headers['set-cookie'] ?? [])[0]?.split(';')[0] ?? '';
  const consent = await fetch(start.body.authorize_url as string, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location')!);
  return request(gateway).get(callback.pathname).set('Cookie', cookie).query(Object.fromEntries(callback.searchParams));
}

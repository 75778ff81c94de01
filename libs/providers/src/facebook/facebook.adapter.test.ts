import { type AxiosRequestConfig } from 'axios';
import { ProviderError } from '../errors/provider-error.ts';
import { type NetworkClient } from '../http/network-client.ts';
import { createFacebookAdapter } from './facebook.adapter.ts';

describe('Facebook analytics', () => {
  it('asks again without post_engaged_users when Graph calls it an invalid metric', async () => {
    const metricsAsked: string[] = [];
    const request = async (config: AxiosRequestConfig) => {
      if (config.url?.endsWith('/insights')) {
        const metric = String((config.params as { metric: string }).metric);
        metricsAsked.push(metric);
        if (metric.includes('post_engaged_users')) {
          throw new ProviderError({ network: 'facebook', kind: 'validation', status: 400, networkCode: '100', networkMessage: '(#100) The value must be a valid insights metric' });
        }
        return { data: { data: [{ name: 'post_clicks', values: [{ value: 4 }] }, { name: 'post_reactions_by_type_total', values: [{ value: { like: 2, haha: 1 } }] }] } };
      }
      return { data: { id: '1', access_token: 'page-token' } };
    };
    const adapter = createFacebookAdapter({
      client: { network: 'facebook', request } as unknown as NetworkClient,
      polling: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
      fetchMedia: () => Promise.reject(new Error('unused')),
      upload: { baseTimeoutMs: 1000, minBytesPerSecond: 1 << 20, stepAttempts: 1 },
      now: Date.now,
      graphVersion: 'v25.0',
      authBaseUrl: 'https://www.facebook.com',
    });
    const metrics = await adapter.analytics.fetch({ credentials: { accessToken: 't' }, platformPostId: '1_2' });
    expect(metrics).toEqual({ post_engaged_users: 0, post_clicks: 4, post_reactions_by_type_total: 3 });
    expect(metricsAsked).toEqual(['post_engaged_users,post_clicks,post_reactions_by_type_total', 'post_clicks,post_reactions_by_type_total']);
  });
});

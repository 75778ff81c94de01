import { type AdapterDeps } from '../adapter-deps.ts';
import { LOOKUP_SKEW_MS, scanNewestFirst, type CandidatePage } from '../lookup/scan.ts';
import { type LookupCapability } from '../types.ts';

interface Timeline {
  data?: { id: string; text: string; created_at?: string }[];
  meta?: { next_token?: string };
}

/**
 * Finds an attempt's post in the user's timeline, `GET /2/users/:id/tweets` with `start_time`
 * (X API v2 "User Posts timeline", newest first, up to 100 a page; scope tweet.read).
 */
export function xLookup(deps: AdapterDeps): LookupCapability {
  const get = async <T>(url: string, token: string, params: Record<string, string>) =>
    (await deps.client.request<T>({ method: 'GET', url, params, headers: { Authorization: `Bearer ${token}` } })).data;
  return {
    async find(input) {
      const token = input.credentials.accessToken;
      const me = await get<{ data: { id: string; username: string } }>('/2/users/me', token, {});
      const startTime = new Date(input.since.getTime() - LOOKUP_SKEW_MS).toISOString();
      const pageFrom = (pagination?: string) => async (): Promise<CandidatePage> => {
        const body = await get<Timeline>(`/2/users/${me.data.id}/tweets`, token, {
          start_time: startTime,
          max_results: '100',
          'tweet.fields': 'created_at',
          ...(pagination ? { pagination_token: pagination } : {}),
        });
        return {
          items: (body.data ?? []).map((tweet) => ({ id: tweet.id, text: tweet.text, createdAt: Date.parse(tweet.created_at ?? ''), url: `https://x.com/${me.data.username}/status/${tweet.id}` })),
          next: body.meta?.next_token ? pageFrom(body.meta.next_token) : undefined,
        };
      };
      return scanNewestFirst('x', input, pageFrom());
    },
  };
}

import { type AdapterDeps } from '../adapter-deps.ts';
import { LOOKUP_SKEW_MS, scanNewestFirst, type CandidatePage } from '../lookup/scan.ts';
import { type LookupCapability } from '../types.ts';

interface Timeline {
  data?: {
    id: string;
    text: string;
    created_at?: string;
    attachments?: { media_keys?: string[] };
    referenced_tweets?: { type: string; id: string }[];
  }[];
  meta?: { next_token?: string };
}

/** A media key is `<type>_<media id>` (3_ photo, 7_/13_ video, 16_ GIF): the id is what the upload returned. */
const mediaIdsOfKeys = (keys: string[] | undefined) => (keys ?? []).map((key) => key.slice(key.indexOf('_') + 1));

/**
 * Finds an attempt's post in the user's timeline, `GET /2/users/:id/tweets` with `start_time`
 * (X API v2 "User Posts timeline", newest first, up to 100 a page; scope tweet.read), by its media
 * keys when the attempt uploaded media, else by text. A reply (a thread's later part, a first
 * comment) must also answer the post it was written for (`referenced_tweets` of type `replied_to`).
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
          'tweet.fields': 'created_at,attachments,referenced_tweets',
          ...(pagination ? { pagination_token: pagination } : {}),
        });
        return {
          items: (body.data ?? []).map((tweet) => ({
            id: tweet.id,
            text: tweet.text,
            createdAt: Date.parse(tweet.created_at ?? ''),
            url: `https://x.com/${me.data.username}/status/${tweet.id}`,
            mediaIds: mediaIdsOfKeys(tweet.attachments?.media_keys),
            inReplyTo: tweet.referenced_tweets?.find((reference) => reference.type === 'replied_to')?.id,
          })),
          next: body.meta?.next_token ? pageFrom(body.meta.next_token) : undefined,
        };
      };
      return scanNewestFirst('x', input, pageFrom());
    },
  };
}

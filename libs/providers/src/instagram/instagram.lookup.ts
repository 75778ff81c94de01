import { graphPages, graphTimeMs } from '../graph/graph-timeline.ts';
import { type GraphApi } from '../graph/graph-api.ts';
import { LOOKUP_SKEW_MS, scanNewestFirst } from '../lookup/scan.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { type LookupCapability } from '../types.ts';

interface IgMediaItem {
  id: string;
  caption?: string;
  timestamp?: string;
  permalink?: string;
}

/** Looks for the attempt's media in `GET /{ig-user-id}/media` (caption, timestamp; newest first). */
export function instagramLookup(api: GraphApi): LookupCapability {
  return {
    async find(input) {
      const igUserId = input.credentials.extras?.ig_user_id;
      if (!igUserId) throw new ProviderError({ network: 'instagram', kind: 'validation', networkCode: 'missing_extra', networkMessage: 'The Instagram account has no ig_user_id.' });
      const since = Math.floor((input.since.getTime() - LOOKUP_SKEW_MS) / 1000);
      return scanNewestFirst('instagram', input, graphPages<IgMediaItem>(api, `/${igUserId}/media`, { fields: 'id,caption,timestamp,permalink', since }, input.credentials.accessToken, (item) => ({
        id: item.id,
        text: item.caption ?? '',
        createdAt: graphTimeMs(item.timestamp),
        url: item.permalink ?? `https://www.instagram.com/${input.credentials.extras?.username ?? ''}`,
      })));
    },
  };
}

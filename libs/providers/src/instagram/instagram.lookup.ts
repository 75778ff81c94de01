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

/**
 * Through the attempt's container first (`GET /{container-id}?fields=status_code`): never published
 * (FINISHED, ERROR, EXPIRED) means absent, still IN_PROGRESS means ask again later, PUBLISHED means
 * the media exists. The media itself is looked for in `GET /{ig-user-id}/media` (caption, timestamp;
 * newest first), which the container does not point to.
 */
export function instagramLookup(api: GraphApi): LookupCapability {
  return {
    async find(input) {
      const igUserId = input.credentials.extras?.ig_user_id;
      if (!igUserId)
        throw new ProviderError({
          network: 'instagram',
          kind: 'validation',
          networkCode: 'missing_extra',
          networkMessage: 'The Instagram account has no ig_user_id.',
        });
      let published = false;
      if (input.handle) {
        const container = await api.get<{ status_code?: string }>(
          `/${input.handle}`,
          { fields: 'status_code' },
          input.credentials.accessToken,
        );
        if (container.status_code === 'IN_PROGRESS') return { status: 'pending' };
        if (container.status_code !== 'PUBLISHED') return { status: 'absent' };
        published = true;
      }
      const since = Math.floor((input.since.getTime() - LOOKUP_SKEW_MS) / 1000);
      const found = await scanNewestFirst(
        'instagram',
        input,
        graphPages<IgMediaItem>(
          api,
          `/${igUserId}/media`,
          { fields: 'id,caption,timestamp,permalink', since },
          input.credentials.accessToken,
          (item) => ({
            id: item.id,
            text: item.caption ?? '',
            createdAt: graphTimeMs(item.timestamp),
            url: item.permalink ?? `https://www.instagram.com/${input.credentials.extras?.username ?? ''}`,
          }),
        ),
      );
      // The container says it was published: a listing that does not show it yet is lagging, not proof.
      return found.status === 'absent' && published ? { status: 'pending' } : found;
    },
  };
}

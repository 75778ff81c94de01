import { type AdapterDeps } from '../adapter-deps.ts';
import { scanNewestFirst, type CandidatePage } from '../lookup/scan.ts';
import { type Credentials, type LookupCapability } from '../types.ts';
import { type LinkedInRest } from './linkedin.media.ts';
import { toLittleText } from './linkedin.text.ts';

interface PostsPage {
  elements?: {
    id: string;
    commentary?: string;
    createdAt?: number;
    publishedAt?: number;
    content?: { media?: { id?: string }; multiImage?: { images?: { id?: string }[] } };
  }[];
  paging?: { start?: number; count?: number; total?: number };
}

const COUNT = 100;

/** The image or video URNs a post carries (`content.media` or `content.multiImage`). */
const mediaOf = (post: NonNullable<PostsPage['elements']>[number]) =>
  [post.content?.media?.id, ...(post.content?.multiImage?.images ?? []).map((image) => image.id)].filter(
    (id): id is string => typeof id === 'string',
  );

/**
 * Posts API finder "by author" (`GET /rest/posts?q=author&author=...`, `X-RestLi-Method: FINDER`).
 * Reading a member's posts needs `r_member_social`, which LinkedIn grants only to approved partners:
 * without it LinkedIn answers 403 and the lookup throws `permission_missing` (reported as unknown).
 * The commentary is compared in the little-text form the adapter sent; when the attempt uploaded media,
 * its image or video URNs identify the post instead.
 */
export function linkedinLookup(
  deps: AdapterDeps,
  rest: LinkedInRest,
  authorOf: (credentials: Credentials) => Promise<string>,
): LookupCapability {
  return {
    async find(input) {
      const token = input.credentials.accessToken;
      const author = await authorOf(input.credentials);
      const pageFrom = (start: number) => async (): Promise<CandidatePage> => {
        const body = (
          await deps.client.request<PostsPage>({
            method: 'GET',
            url: '/rest/posts',
            params: { q: 'author', author, count: String(COUNT), start: String(start), sortBy: 'CREATED' },
            headers: { ...rest.headers(token), 'X-RestLi-Method': 'FINDER' },
          })
        ).data;
        const items = (body.elements ?? []).map((post) => ({
          id: post.id,
          text: post.commentary ?? '',
          createdAt: post.publishedAt ?? post.createdAt ?? 0,
          url: `https://www.linkedin.com/feed/update/${post.id}`,
          mediaIds: mediaOf(post),
        }));
        const more = items.length === COUNT && (body.paging?.total === undefined || start + COUNT < body.paging.total);
        return { items, next: more ? pageFrom(start + COUNT) : undefined };
      };
      return scanNewestFirst('linkedin', { ...input, text: toLittleText(input.text) }, pageFrom(0));
    },
  };
}

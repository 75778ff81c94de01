import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { createCall } from '../http/create-call.ts';
import { scanComments, type CommentPage } from '../lookup/comment-scan.ts';
import { type CommentCapability, type Credentials } from '../types.ts';
import { type LinkedInRest } from './linkedin.media.ts';

interface LiComment {
  id?: string;
  commentUrn?: string;
  actor?: string;
  message?: { text?: string };
}

const COUNT = 100;

/**
 * First comments through the Comments API (Community Management, "Comments"):
 * `POST /rest/socialActions/{post urn}/comments` with `{actor, object, message: {text}}` answers 201
 * with the comment, whose `commentUrn` is kept as its id; a comment whose answer was lost is looked
 * for in `GET` of the same path (`start`, `count`), by its actor and text. Reading comments needs
 * `r_member_social` for a member's post (which most apps lack: LinkedIn answers 403 and the lookup
 * reports that it cannot tell) or `r_organization_social` for a Page's.
 */
export function linkedinComments(
  deps: AdapterDeps,
  rest: LinkedInRest,
  authorOf: (credentials: Credentials) => Promise<string>,
): CommentCapability {
  const path = (postId: string) => `/rest/socialActions/${encodeURIComponent(postId)}/comments`;
  return {
    async create({ credentials, postId, text }) {
      const actor = await authorOf(credentials);
      const response = await createCall(() =>
        deps.client.request<LiComment>({
          method: 'POST',
          url: path(postId),
          data: { actor, object: postId, message: { text } },
          headers: rest.headers(credentials.accessToken),
        }),
      );
      const id =
        response.data.commentUrn ?? (response.headers['x-restli-id'] as string | undefined) ?? response.data.id;
      // A 201 without the comment's id: it exists, so only a lookup may find it.
      if (id === undefined)
        throw new ProviderError({
          network: 'linkedin',
          kind: 'transient',
          networkMessage: 'LinkedIn did not return the comment id.',
          uncertain: true,
        });
      return { platformCommentId: id };
    },
    async find({ credentials, postId, text, excludeIds }) {
      const actor = await authorOf(credentials);
      const pageFrom = (start: number) => async (): Promise<CommentPage> => {
        const body = (
          await deps.client.request<{ elements?: LiComment[]; paging?: { total?: number } }>({
            method: 'GET',
            url: path(postId),
            params: { start: String(start), count: String(COUNT) },
            headers: rest.headers(credentials.accessToken),
          })
        ).data;
        const items = (body.elements ?? []).map((comment) => ({
          id: comment.commentUrn ?? comment.id ?? '',
          text: comment.message?.text ?? '',
          author: comment.actor,
        }));
        const more = items.length === COUNT && (body.paging?.total === undefined || start + COUNT < body.paging.total);
        return { items, next: more ? pageFrom(start + COUNT) : undefined };
      };
      return scanComments('linkedin', { text, author: actor, excludeIds }, pageFrom(0));
    },
  };
}

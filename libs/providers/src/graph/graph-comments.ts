import { createCall } from '../http/create-call.ts';
import { scanComments, type CommentPage } from '../lookup/comment-scan.ts';
import { type CommentCapability, type Credentials } from '../types.ts';
import { type GraphApi } from './graph-api.ts';

interface GraphComment {
  id: string;
  text?: string;
  message?: string;
  from?: { id?: string };
}

interface GraphCommentPage {
  data?: GraphComment[];
  paging?: { cursors?: { after?: string }; next?: string };
}

export interface GraphCommentsOptions {
  network: 'instagram' | 'facebook';
  /** The token that comments as the account (Facebook: the Page token). */
  tokenOf: (credentials: Credentials) => Promise<string>;
  /** The account's id as comments name their author (`from.id`): the Page, or the Instagram account. */
  authorOf: (credentials: Credentials) => string | undefined;
}

/**
 * First comments through Graph: `POST /{object-id}/comments` with `message` answers `{id}`
 * (Instagram "Comment Moderation": `POST /{ig-media-id}/comments?message=`; Pages API "Comments":
 * `POST /{page-post-id}/comments`); a comment whose answer was lost is looked for in
 * `GET /{object-id}/comments` (Instagram `text`, Facebook `message`, both `from`), 100 a page.
 */
export function graphComments(api: GraphApi, options: GraphCommentsOptions): CommentCapability {
  const fields = options.network === 'instagram' ? 'id,text,timestamp,from' : 'id,message,created_time,from';
  return {
    async create({ credentials, postId, text }) {
      const token = await options.tokenOf(credentials);
      const { id } = await createCall(() => api.post<{ id: string }>(`/${postId}/comments`, { message: text }, token));
      return { platformCommentId: id };
    },
    async find({ credentials, postId, text, excludeIds }) {
      const token = await options.tokenOf(credentials);
      const pageFrom = (after?: string) => async (): Promise<CommentPage> => {
        const body = await api.get<GraphCommentPage>(
          `/${postId}/comments`,
          { fields, limit: 100, ...(after === undefined ? {} : { after }) },
          token,
        );
        const cursor = body.paging?.next ? body.paging.cursors?.after : undefined;
        return {
          items: (body.data ?? []).map((comment) => ({
            id: comment.id,
            text: comment.text ?? comment.message ?? '',
            author: comment.from?.id,
          })),
          next: cursor === undefined ? undefined : pageFrom(cursor),
        };
      };
      return scanComments(options.network, { text, author: options.authorOf(credentials), excludeIds }, pageFrom());
    },
  };
}

import { type SandboxState } from '../state/sandbox-state.ts';
import { type NetworkName } from '../state/types.ts';

/** A comment under a post, as the network keeps it (Instagram, Facebook, LinkedIn). */
export interface RecordedComment {
  network: NetworkName;
  id: string;
  /** The native id of the post it is under. */
  post_id: string;
  /** Who wrote it: the Instagram account, the Page, or the LinkedIn member or organization. */
  account: string;
  text: string;
  created_at: string;
}

const STORE = 'sandbox.comments';

/** Every comment of every network, oldest first, kept among the state's stores (reset clears them). */
function allComments(state: SandboxState): RecordedComment[] {
  const stores = state.store<RecordedComment[]>(STORE);
  let list = stores.get('all');
  if (list === undefined) {
    list = [];
    stores.set('all', list);
  }
  return list;
}

export function recordComment(state: SandboxState, comment: RecordedComment): void {
  allComments(state).push(comment);
}

/** The comments under one post, oldest first. */
export const commentsUnder = (state: SandboxState, network: NetworkName, postId: string): RecordedComment[] =>
  allComments(state).filter((comment) => comment.network === network && comment.post_id === postId);

/** What `GET /__sandbox/comments` lists. */
export const commentsOf = (state: SandboxState, network: NetworkName | undefined): RecordedComment[] =>
  allComments(state).filter((comment) => network === undefined || comment.network === network);

export interface XMedia {
  id: string;
  userId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  segments: Map<number, Buffer>;
  finalized: boolean;
  polls: number;
  state: 'pending' | 'in_progress' | 'succeeded' | 'failed' | undefined;
  error: string | undefined;
  /** Set by `POST /2/media/metadata` (`alt_text.text`). */
  altText?: string;
}

export interface XTweet {
  id: string;
  userId: string;
  text: string;
  mediaIds: string[];
  createdAt: string;
  /** The post this one replies to (`reply.in_reply_to_tweet_id`): a thread's earlier part, or any post. */
  inReplyTo?: string | undefined;
}

/**
 * `referenced_tweets` as X returns it when `tweet.fields` asks for it: a reply names the post it
 * answers with type `replied_to` (X API v2 Tweet object); nothing for a post that references none.
 */
export const referencedTweets = (tweet: XTweet, fields: readonly string[]) =>
  fields.includes('referenced_tweets') && tweet.inReplyTo !== undefined
    ? { referenced_tweets: [{ type: 'replied_to', id: tweet.inReplyTo }] }
    : {};

/** X's media key, `<type>_<media id>`: 3 photo, 13 (amplify) video, 16 animated GIF. */
export const mediaKey = (media: Pick<XMedia, 'id' | 'category'>) =>
  `${media.category.endsWith('video') ? 13 : media.category.endsWith('gif') ? 16 : 3}_${media.id}`;

/**
 * `tweetsByText`: `${userId}\n${text}` -> tweet id, so the duplicate check does not scan every tweet.
 * `timelines`: user id -> that user's tweets, oldest first (timelineOrder), so a timeline page costs
 * what it returns, not a filter and sort of every tweet (a soak leaves hundreds of thousands).
 */
export const X_STORES = {
  media: 'x.media',
  tweets: 'x.tweets',
  tweetsByText: 'x.tweets_by_text',
  timelines: 'x.timelines',
  windows: 'x.windows',
} as const;

/** Oldest first: by creation time, then by id (Snowflake ids of one length grow with time). */
function timelineOrder(a: XTweet, b: XTweet): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Adds a tweet to its user's timeline in order: at the end, unless the clock went back. */
export function addToTimeline(timelines: Map<string, XTweet[]>, tweet: XTweet): void {
  const timeline = timelines.get(tweet.userId) ?? [];
  timelines.set(tweet.userId, timeline);
  let at = timeline.length;
  while (at > 0 && timelineOrder(timeline[at - 1]!, tweet) > 0) at -= 1;
  timeline.splice(at, 0, tweet);
}

/** The index of the first tweet of an oldest-first timeline created at or after `startMs`. */
export function firstSince(timeline: readonly XTweet[], startMs: number): number {
  let low = 0;
  let high = timeline.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (Date.parse(timeline[middle]!.createdAt) < startMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

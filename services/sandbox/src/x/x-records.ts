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
}

export interface XTweet {
  id: string;
  userId: string;
  text: string;
  mediaIds: string[];
  createdAt: string;
}

/** X's media key, `<type>_<media id>`: 3 photo, 13 (amplify) video, 16 animated GIF. */
export const mediaKey = (media: Pick<XMedia, 'id' | 'category'>) => `${media.category.endsWith('video') ? 13 : media.category.endsWith('gif') ? 16 : 3}_${media.id}`;

/** `tweetsByText`: `${userId}\n${text}` -> tweet id, so the duplicate check does not scan every tweet. */
export const X_STORES = { media: 'x.media', tweets: 'x.tweets', tweetsByText: 'x.tweets_by_text', windows: 'x.windows' } as const;

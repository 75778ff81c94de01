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

export const X_STORES = { media: 'x.media', tweets: 'x.tweets', windows: 'x.windows' } as const;

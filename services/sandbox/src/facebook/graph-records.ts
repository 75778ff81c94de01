import { type FetchedMedia } from '../media/fetch-media.ts';

/** A settled or still running media download the network started on its own. */
export interface PendingFetch {
  result: FetchedMedia | undefined;
}

export interface IgContainer {
  id: string;
  igUserId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';
  /** What the container holds (a story may be either): decides how its processing checks the media. */
  kind: 'image' | 'video' | 'carousel';
  isCarouselItem: boolean;
  children: string[];
  caption: string;
  mediaUrl: string | undefined;
  download: PendingFetch | undefined;
  statusCode: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED' | 'EXPIRED';
  errorText: string | undefined;
  polls: number;
  options: Record<string, string>;
  /** `alt_text` of an image container (Instagram takes it on images only). */
  altText: string | undefined;
}

export interface IgMedia {
  id: string;
  igUserId: string;
  shortcode: string;
  permalink: string;
  mediaType: string;
  productType: string;
  caption: string;
  timestamp: string;
}

export interface FbPost {
  id: string;
  pageId: string;
  message: string;
  permalink: string;
  createdAt: string;
}

export interface FbPhoto {
  id: string;
  pageId: string;
  url: string;
  published: boolean;
  postId: string | undefined;
  attached: boolean;
  /** `alt_text_custom`: the photo's own description. */
  altText: string | undefined;
}

export interface FbVideo {
  id: string;
  pageId: string;
  postId: string;
  description: string;
  download: PendingFetch;
  polls: number;
}

/** A reel's video (`video_reels`): started, uploaded (pulled from `file_url`), then finished (published). */
export interface FbReel {
  id: string;
  pageId: string;
  phase: 'started' | 'uploaded' | 'finished';
  fileUrl: string | undefined;
  /** Measured from the uploaded file (undefined: not an MP4/MOV Facebook could read). */
  facts: { format: string; durationMs: number; width: number; height: number } | undefined;
  description: string;
  /** When `finish` published it (ms): the 24 h publishing window counts from here. */
  publishedAt: number | undefined;
  /** Status reads since it was finished: processing ends after `processingPolls` of them. */
  polls: number;
}

export const STORES = {
  igContainers: 'graph.igContainers',
  igMedia: 'graph.igMedia',
  fbPosts: 'graph.fbPosts',
  fbPhotos: 'graph.fbPhotos',
  fbVideos: 'graph.fbVideos',
  fbReels: 'graph.fbReels',
  fbLastMessage: 'graph.fbLastMessage',
} as const;

/** Starts a download and lets status reads see its outcome later, like the network's crawler. */
export function startDownload(fetcher: (url: string) => Promise<FetchedMedia>, url: string): PendingFetch {
  const pending: PendingFetch = { result: undefined };
  void fetcher(url).then((result) => {
    pending.result = result;
  });
  return pending;
}

import { type PendingFetch } from '../facebook/graph-records.ts';
import { type MediaRef } from '../state/types.ts';

export interface TtPublish {
  publishId: string;
  openId: string;
  kind: 'video' | 'photo';
  source: 'PULL_FROM_URL' | 'FILE_UPLOAD';
  title: string;
  privacyLevel: string;
  interactions: { disable_comment: boolean; disable_duet: boolean; disable_stitch: boolean };
  media: MediaRef[];
  downloads: PendingFetch[];
  videoSize: number;
  /** FILE_UPLOAD's declared plan: every chunk but the last is exactly `chunkSize`. */
  chunkSize: number;
  chunkCount: number;
  uploaded: Map<number, Buffer>;
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';
  /** An upload to the creator's inbox (inbox video init, or photos with MEDIA_UPLOAD): ends at SEND_TO_USER_INBOX. */
  inbox: boolean;
  failReason: string;
  polls: number;
  postId: string | undefined;
  /** Public posts show their id one status read after PUBLISH_COMPLETE (moderation). */
  moderated: boolean;
  uploadToken: string;
}

export interface TtVideo {
  id: string;
  openId: string;
  title: string;
  kind: 'video' | 'photo';
  createTime: number;
}

export const TT_STORES = { publishes: 'tiktok.publishes', uploads: 'tiktok.uploads', videos: 'tiktok.videos' } as const;

export const PRIVACY_PUBLIC_ACCOUNT = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
/** A private account offers its followers or itself only. */
export const PRIVACY_PRIVATE_ACCOUNT = ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
export const MIN_CHUNK = 5 * 1024 * 1024;
export const MAX_CHUNK = 64 * 1024 * 1024;
/** The last chunk absorbs the remainder, up to 128 MB. */
export const MAX_LAST_CHUNK = 128 * 1024 * 1024;

import { type MediaFetcher } from './http/media-fetcher.ts';
import { type NetworkClient } from './http/network-client.ts';
import { type PollingOptions } from './http/poll.ts';
import { type UploadOptions } from './http/upload.ts';

/** What every adapter is built from; `providersFromConfig` assembles them, tests inject their own. */
export interface AdapterDeps {
  client: NetworkClient;
  polling: PollingOptions;
  /**
   * Polling inside the publish call once the network holds the attempt under a handle (TikTok
   * publish, Facebook video, the post's Instagram container): past it the call ends `uncertain` and
   * the caller reconciles through the handle later, without holding a worker while it waits.
   */
  handoffPolling: PollingOptions;
  fetchMedia: MediaFetcher;
  upload: UploadOptions;
  now: () => number;
}

import { type MediaFetcher } from './http/media-fetcher.ts';
import { type NetworkClient } from './http/network-client.ts';
import { type PollingOptions } from './http/poll.ts';
import { type UploadOptions } from './http/upload.ts';

/** What every adapter is built from; `providersFromConfig` assembles them, tests inject their own. */
export interface AdapterDeps {
  client: NetworkClient;
  polling: PollingOptions;
  fetchMedia: MediaFetcher;
  upload: UploadOptions;
  now: () => number;
}

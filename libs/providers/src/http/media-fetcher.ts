import { boundedFetch, FetchLimitError, readBounded } from '@svc/http';
import { ProviderError } from '../errors/provider-error.ts';
import { type Network } from '../types.ts';

export interface FetchedMedia {
  bytes: Buffer;
  contentType: string;
}

/**
 * Downloads a user's media for networks that only take bytes (X, LinkedIn). Injectable: services
 * that already own an SSRF-guarded fetcher pass theirs. Failures are thrown as `media_invalid`.
 */
export type MediaFetcher = (network: Network, url: string) => Promise<FetchedMedia>;

export interface MediaFetcherOptions {
  /** Time for the whole download, body included (a drip-feeding server is cut off here). */
  deadlineMs: number;
  maxBytes: number;
  /**
   * Dev and tests only (docs/api-conventions.md, "URLs users give us"): admits private and loopback
   * addresses, never link-local.
   */
  allowPrivateUrls: boolean;
}

const invalid = (network: Network, message: string, code: string) =>
  new ProviderError({ network, kind: 'media_invalid', networkCode: code, networkMessage: message });

const CODES: Record<FetchLimitError['reason'], string> = {
  invalid: 'media_url_invalid',
  scheme: 'media_url_invalid',
  unresolvable: 'media_unreachable',
  blocked: 'media_url_blocked',
  too_many_redirects: 'media_download_failed',
  status: 'media_download_failed',
  too_large: 'media_too_large',
  deadline: 'media_timeout',
  network: 'media_download_failed',
};

/**
 * Every download is bounded: a Content-Length over `maxBytes` is refused before the body
 * is read, the body is cut at `maxBytes` while streaming, and one deadline covers the whole exchange.
 * Redirects are followed up to 5 hops, each checked by the SSRF guard.
 */
export function createMediaFetcher(options: MediaFetcherOptions): MediaFetcher {
  const policy = { allowPrivate: options.allowPrivateUrls };
  const { deadlineMs } = options;
  return async (network, rawUrl) => {
    try {
      const response = await boundedFetch(rawUrl, { policy, deadlineMs, maxBytes: options.maxBytes });
      const bytes = await readBounded(response.body);
      return { bytes, contentType: String(response.headers['content-type'] ?? 'application/octet-stream') };
    } catch (error) {
      if (!(error instanceof FetchLimitError)) throw error;
      if (error.reason === 'deadline') {
        throw new ProviderError({
          network,
          kind: 'transient',
          networkCode: 'media_timeout',
          networkMessage: `The media URL ${rawUrl} was not downloaded within ${deadlineMs} ms.`,
        });
      }
      throw invalid(network, `The media URL ${rawUrl} is not usable: ${error.message}.`, CODES[error.reason]);
    }
  };
}

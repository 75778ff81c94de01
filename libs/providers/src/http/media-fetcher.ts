import { checkUrl, safeAgents } from '@svc/http';
import axios from 'axios';
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
  timeoutMs: number;
  maxBytes: number;
  /** Dev and tests only (decisions §3): admits private and loopback addresses, never link-local. */
  allowPrivateUrls: boolean;
}

const invalid = (network: Network, message: string, code: string) => new ProviderError({ network, kind: 'media_invalid', networkCode: code, networkMessage: message });

/** Redirects are not followed: a redirect could lead past the address check. */
export function createMediaFetcher(options: MediaFetcherOptions): MediaFetcher {
  const policy = { allowPrivate: options.allowPrivateUrls };
  // The pre-check gives a clear error; the agents enforce the policy at connect time (DNS rebinding).
  const agents = safeAgents(policy);
  return async (network, rawUrl) => {
    const checked = await checkUrl(rawUrl, policy);
    if (!checked.ok) {
      const code = checked.reason === 'blocked' ? 'media_url_blocked' : checked.reason === 'unresolvable' ? 'media_unreachable' : 'media_url_invalid';
      throw invalid(network, `The media URL is not usable: ${checked.message}.`, code);
    }
    const url = checked.url;
    try {
      const response = await axios.get<ArrayBuffer>(url.toString(), {
        responseType: 'arraybuffer',
        timeout: options.timeoutMs,
        maxRedirects: 0,
        ...agents,
        proxy: false,
        maxContentLength: options.maxBytes,
      });
      return { bytes: Buffer.from(response.data), contentType: String(response.headers['content-type'] ?? 'application/octet-stream') };
    } catch (error) {
      const status = axios.isAxiosError(error) ? error.response?.status : undefined;
      if (status !== undefined) throw invalid(network, `The media URL ${rawUrl} answered HTTP ${status}.`, 'media_download_failed');
      const code = axios.isAxiosError(error) ? error.code : undefined;
      if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
        throw new ProviderError({ network, kind: 'transient', networkCode: 'media_timeout', networkMessage: `The media URL ${rawUrl} did not answer in time.` });
      }
      throw invalid(network, `The media URL ${rawUrl} could not be downloaded.`, 'media_download_failed');
    }
  };
}

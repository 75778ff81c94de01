import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
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

function blocked(address: string, allowPrivate: boolean): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (v4.startsWith('169.254.') || /^fe80:/i.test(address) || address.toLowerCase() === 'fd00:ec2::254' || v4 === '0.0.0.0') return true;
  const privateOrLoopback =
    v4.startsWith('127.') || v4.startsWith('10.') || v4.startsWith('192.168.') || /^172\.(1[6-9]|2\d|3[01])\./.test(v4) || address === '::1' || /^f[cd]/i.test(address);
  return privateOrLoopback && !allowPrivate;
}

const invalid = (network: Network, message: string, code: string) => new ProviderError({ network, kind: 'media_invalid', networkCode: code, networkMessage: message });

/** Redirects are not followed: a redirect could lead past the address check. */
export function createMediaFetcher(options: MediaFetcherOptions): MediaFetcher {
  return async (network, rawUrl) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw invalid(network, `The media URL ${rawUrl} is not a valid URL.`, 'media_url_invalid');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(network, `The media URL ${rawUrl} must be http(s).`, 'media_url_invalid');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      throw invalid(network, `The media host ${host} could not be resolved.`, 'media_unreachable');
    }
    if (addresses.some((address) => blocked(address, options.allowPrivateUrls))) {
      throw invalid(network, `The media URL ${rawUrl} points to a private address.`, 'media_url_blocked');
    }
    try {
      const response = await axios.get<ArrayBuffer>(url.toString(), {
        responseType: 'arraybuffer',
        timeout: options.timeoutMs,
        maxRedirects: 0,
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

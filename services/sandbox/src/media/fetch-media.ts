import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isBlockedAddress } from '@svc/http';
import { sniffFormat, type MediaFormat } from './sniff.ts';

export type FetchedMedia =
  | { ok: true; bytes: Buffer; format: MediaFormat; contentType: string }
  | { ok: false; reason: 'blocked' | 'http_error' | 'unreachable' | 'too_large'; status?: number };

export interface FetchMediaOptions {
  allowPrivateUrls: boolean;
  timeoutMs: number;
  maxBytes: number;
}

const MAX_REDIRECTS = 3;

/** The same address policy as our own services (libs/http): a crawler that is laxer would hide our bugs. */
async function hostAllowed(url: URL, allowPrivate: boolean): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  return addresses.length > 0 && addresses.every((address) => !isBlockedAddress(address, { allowPrivate }));
}

/**
 * Downloads media the way a network's crawler does: only public http(s) URLs, redirects re-checked,
 * bounded time and size. A 404 or private URL fails here, and the caller answers with the network's
 * own "media download failed" error.
 */
export async function fetchMedia(rawUrl: string, options: FetchMediaOptions): Promise<FetchedMedia> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'unreachable' };
  }
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'blocked' };
      if (!(await hostAllowed(url, options.allowPrivateUrls))) return { ok: false, reason: 'blocked' };
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url);
        continue;
      }
      if (!response.ok) return { ok: false, reason: 'http_error', status: response.status };
      const bytes = Buffer.from(await response.arrayBuffer());
      if (bytes.length > options.maxBytes) return { ok: false, reason: 'too_large' };
      return { ok: true, bytes, format: sniffFormat(bytes), contentType: response.headers.get('content-type') ?? '' };
    }
    return { ok: false, reason: 'unreachable' };
  } catch {
    return { ok: false, reason: 'unreachable' };
  }
}

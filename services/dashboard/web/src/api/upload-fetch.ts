import type { FetchLike } from '@svc/sdk';
import { dashboardFetch } from './client.ts';
import { csrfHeaders } from './csrf.ts';

/**
 * A fetch for uploads that reports progress. Browsers report upload progress only for
 * XMLHttpRequest (a streamed fetch body needs HTTP/2), so the SDK's request is sent with one.
 */
export function progressFetch(onProgress: (loaded: number, total: number) => void): FetchLike {
  return async (request) => {
    if (request.method !== 'POST') return dashboardFetch(request);
    const body = await request.blob();
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(csrfHeaders())) headers.set(name, value);
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url);
      headers.forEach((value, name) => xhr.setRequestHeader(name, value));
      xhr.responseType = 'blob';
      xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : body.size);
      xhr.onload = () => resolve(responseOf(xhr));
      xhr.onerror = () => reject(new TypeError('The upload failed: the connection was lost.'));
      xhr.onabort = () => reject(request.signal.reason ?? new DOMException('Aborted', 'AbortError'));
      request.signal.addEventListener('abort', () => xhr.abort(), { once: true });
      xhr.send(body);
    });
  };
}

function responseOf(xhr: XMLHttpRequest): Response {
  const headers = new Headers();
  for (const line of xhr
    .getAllResponseHeaders()
    .trim()
    .split(/[\r\n]+/)) {
    const at = line.indexOf(':');
    if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
  return new Response(empty ? null : (xhr.response as Blob), { status: xhr.status, headers });
}

import type { Readable } from 'node:stream';
import { AppError } from '@svc/errors';
import { boundedFetch, FetchLimitError, type SsrfPolicy } from '@svc/http';
import {
  ingest,
  largestLimit,
  tooLarge,
  type AnalyseDeps,
  type IngestDeps,
  type IngestOptions,
  type StoredMedia,
} from './ingest.ts';
import { verifyStream, type Verification, type VerifyDeps } from './verify.ts';

export interface UrlFetchOptions {
  policy: SsrfPolicy;
  deadlineMs: number;
}

/**
 * What a remote server may say it serves. The sniffed type decides; this only refuses answers that
 * are plainly not media (an HTML error page) before reading them. Generic binary types pass: some
 * hosts serve everything as `application/octet-stream`.
 */
const ALLOWED_DECLARED = /^(image\/|video\/|application\/pdf|application\/octet-stream|binary\/octet-stream)/i;

const invalidUrl = (url: string, reason: string, rule: string) =>
  new AppError('validation_error', `The media URL ${url} cannot be used: ${reason}.`, {
    details: [{ path: '/body/url', message: reason, rule, url }],
  });

function fetchFailure(url: string, error: FetchLimitError, maxBytes: number): AppError {
  switch (error.reason) {
    case 'too_large':
      return tooLarge(maxBytes);
    case 'deadline':
      return invalidUrl(url, error.message, 'media_timeout');
    case 'blocked':
      return invalidUrl(url, 'it points to a private, loopback, link-local or metadata address', 'media_url_blocked');
    case 'invalid':
    case 'scheme':
      return invalidUrl(url, error.message, 'media_url');
    case 'unresolvable':
    case 'network':
      return invalidUrl(url, error.message, 'media_unreachable');
    case 'status':
    case 'too_many_redirects':
      return invalidUrl(url, error.message, 'media_download_failed');
  }
}

async function open(url: string, options: UrlFetchOptions, deps: AnalyseDeps) {
  const maxBytes = largestLimit(deps.limits);
  try {
    const response = await boundedFetch(url, { policy: options.policy, deadlineMs: options.deadlineMs, maxBytes });
    const declared = String(response.headers['content-type'] ?? '');
    if (declared !== '' && !ALLOWED_DECLARED.test(declared)) {
      response.body.destroy();
      throw new AppError(
        'unsupported_media_type',
        `The media URL ${url} serves ${declared.split(';')[0]}, which is not an image, a video or a PDF.`,
        {
          details: [{ path: '/body/url', message: `serves ${declared.split(';')[0]}`, rule: 'content_type', url }],
        },
      );
    }
    return { response, maxBytes };
  } catch (error) {
    if (error instanceof FetchLimitError) throw fetchFailure(url, error, maxBytes);
    throw error;
  }
}

/**
 * Streams the body through `consume` with the server's Content-Length, which is held against the
 * sniffed type's limit once the first bytes are in; limit failures met mid-body get the same answers.
 */
async function consumeBody<T>(
  url: string,
  options: UrlFetchOptions,
  deps: AnalyseDeps,
  consume: (body: Readable, contentLength: number | undefined) => Promise<T>,
): Promise<T> {
  const { response, maxBytes } = await open(url, options, deps);
  try {
    return await consume(response.body, response.contentLength);
  } catch (error) {
    if (error instanceof FetchLimitError) throw fetchFailure(url, error, maxBytes);
    throw error;
  } finally {
    response.body.destroy();
  }
}

/** Downloads a URL into the library (SSRF-guarded, bounded), like an upload. */
export const importUrl = (
  deps: IngestDeps,
  url: string,
  options: UrlFetchOptions,
  ingestOptions: Omit<IngestOptions, 'declaredBytes'> = {},
): Promise<StoredMedia> =>
  consumeBody(url, options, deps, (body, declaredBytes) => ingest(deps, body, { ...ingestOptions, declaredBytes }));

/** Checks a URL reading only its headers and first bytes (verify.ts), storing nothing. */
export const verifyUrl = (deps: VerifyDeps, url: string, options: UrlFetchOptions): Promise<Verification> =>
  consumeBody(url, options, deps, (body, contentLength) => verifyStream(deps, body, contentLength));

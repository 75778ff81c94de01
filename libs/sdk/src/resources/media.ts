// The media library: uploads (streamed, with progress), imports from a URL, checks of a URL.
import type { Call, CallWithRawBody, RawBody, RequestOptions } from '../call.ts';
import type { QueryParams, RequestBody, ResponseData } from '../contract.ts';
import { cursorPaginated } from '../pagination.ts';

/** What `media.upload` takes: bytes in memory, a Blob or File, or a stream (sent once, never retried). */
export type UploadSource = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array>;

export interface UploadProgress {
  /** Bytes handed to the connection so far in this attempt (a retry starts again from 0). */
  loaded: number;
  /** The size, when known (not for streams). */
  total: number | undefined;
}

export interface UploadOptions extends RequestOptions {
  /** The request's Content-Type (default `application/octet-stream`); the API sniffs the real type from the bytes. */
  contentType?: string;
  /** Sends a multipart form whose `file` part carries this name (Blob and byte sources only). */
  filename?: string;
  /** Called as the body is sent; with it, the body is streamed (a Blob's size is then not announced). */
  onProgress?: (progress: UploadProgress) => void;
}

function counted(
  stream: ReadableStream<Uint8Array>,
  total: number | undefined,
  onProgress: (p: UploadProgress) => void,
) {
  let loaded = 0;
  onProgress({ loaded, total });
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        controller.enqueue(chunk);
        onProgress({ loaded, total });
      },
    }),
  );
}

/** The body of each attempt: the source as is, as a form, and counted when progress is asked for. */
export function uploadBody(source: UploadSource, options: UploadOptions): RawBody {
  if (source instanceof ReadableStream) {
    const body = options.onProgress === undefined ? source : counted(source, undefined, options.onProgress);
    return {
      make: () => ({ body, contentType: options.contentType ?? 'application/octet-stream' }),
      replayable: false,
    };
  }
  const blob =
    source instanceof Blob
      ? source
      : new Blob([source] as ConstructorParameters<typeof Blob>[0], {
          type: options.contentType ?? 'application/octet-stream',
        });
  return {
    replayable: true,
    make: () => {
      let body: Blob | FormData = blob;
      let contentType: string | undefined = options.contentType ?? (blob.type || 'application/octet-stream');
      if (options.filename !== undefined) {
        const form = new FormData();
        form.append('file', blob, options.filename);
        body = form;
        contentType = undefined;
      }
      if (options.onProgress === undefined) return { body, contentType };
      // A form's bytes and boundary, as fetch would send them, so they can be counted.
      const encoded = body instanceof FormData ? new Response(body) : undefined;
      const stream = encoded?.body ?? (body as Blob).stream();
      return {
        body: counted(stream, encoded === undefined ? blob.size : undefined, options.onProgress),
        contentType: encoded?.headers.get('content-type') ?? contentType,
      };
    },
  };
}

export function mediaResource(call: Call, callWithRawBody: CallWithRawBody) {
  return {
    /** Upload a file (201 with the media record); `@svc/sdk/node` adds uploads from a path. */
    upload: (source: UploadSource, options: UploadOptions = {}): Promise<ResponseData<'createMedia'>> =>
      callWithRawBody('createMedia', options, uploadBody(source, options)),
    /** Import media from a URL (the API downloads it). */
    import: (url: string, options?: RequestOptions) => call('createMedia', { body: { url }, ...options }),
    /** The library, newest first: `for await` over every item, or `.page()` for one page. */
    list: (query: QueryParams<'listMedia'> = {}, options?: RequestOptions) =>
      cursorPaginated<ResponseData<'listMedia'>['items'][number], ResponseData<'listMedia'>, QueryParams<'listMedia'>>(
        query,
        (page) => call('listMedia', { query: page, ...options }),
      ),
    get: (mediaId: string, options?: RequestOptions) => call('getMedia', { path: { media_id: mediaId }, ...options }),
    /** Delete an asset (409 while a post not yet delivered uses it). */
    remove: (mediaId: string, options?: RequestOptions) =>
      call('deleteMedia', { path: { media_id: mediaId }, ...options }),
    /** Check that a URL serves usable media; nothing is stored. */
    verify: (body: RequestBody<'verifyMedia'>, options?: RequestOptions) => call('verifyMedia', { body, ...options }),
  };
}

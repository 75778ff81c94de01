// @svc/sdk/node: helpers that need Node's file system and streams, kept out of the main entry so it
// stays usable in browsers.
import { openAsBlob } from 'node:fs';
import { Readable } from 'node:stream';
import type { ResponseData } from '../contract.ts';
import type { SvcClient } from '../client.ts';
import type { UploadOptions } from '../resources/media.ts';

/**
 * Uploads a file from disk as raw bytes. The file is read as a Blob backed by the file (never whole in
 * memory), so the upload announces its size, reports progress against it, and can be retried.
 */
export async function uploadFile(
  client: SvcClient,
  filePath: string,
  options: UploadOptions = {},
): Promise<ResponseData<'createMedia'>> {
  const blob = await openAsBlob(filePath);
  return client.media.upload(blob, options);
}

/** A Node stream as the web stream `media.upload` takes (sent once: a stream cannot be retried). */
export function webStream(stream: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

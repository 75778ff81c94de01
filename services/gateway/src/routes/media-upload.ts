import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { validationError } from '@svc/errors';
import { ingest, type IngestDeps, type IngestOptions, type StoredMedia } from '@svc/media';
import busboy from 'busboy';

/**
 * Streams the `file` part of a multipart form into the library (docs/api-conventions.md, "Media"). Other parts are
 * skipped; a form without a `file` part is a 400. When ingest fails early (too large, wrong type) the
 * rest of the request is drained so the client reads the error instead of a reset connection.
 */
export function ingestMultipart(
  deps: IngestDeps,
  request: Readable,
  headers: Record<string, string | string[] | undefined>,
  options: IngestOptions = {},
): Promise<StoredMedia> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: headers as IncomingHttpHeaders, limits: { files: 1, fields: 20, parts: 21 } });
    } catch {
      request.resume();
      reject(
        validationError('The multipart body has no boundary.', [
          { path: '/body', message: 'not a multipart/form-data body', rule: 'multipart' },
        ]),
      );
      return;
    }
    let started = false;
    parser.on('file', (name, file) => {
      if (name !== 'file' || started) {
        file.resume();
        return;
      }
      started = true;
      ingest(deps, file, options).then(resolve, (error: unknown) => {
        request.unpipe(parser);
        request.resume();
        reject(error);
      });
    });
    parser.once('error', (error: Error) => {
      request.unpipe(parser);
      request.resume();
      reject(
        validationError(`The multipart body is malformed: ${error.message}.`, [
          { path: '/body', message: error.message, rule: 'multipart' },
        ]),
      );
    });
    parser.once('close', () => {
      if (!started)
        reject(
          validationError('The form has no file part named "file".', [
            { path: '/body/file', message: '"file" is required', rule: 'multipart' },
          ]),
        );
    });
    request.pipe(parser);
  });
}

import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertSafeKey, SAFE_KEY, type MediaStorage } from './storage.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

const isMissing = (error: unknown) => {
  const name = (error as { name?: string } | null)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return name === 'NotFound' || name === 'NoSuchKey' || status === 404;
};

/**
 * An S3-compatible bucket through the AWS SDK v3. Uploads use lib-storage's multipart `Upload`
 * (5 MiB parts, 4 at a time: at most about 20 MiB buffered per upload, whatever the file size);
 * reads stream the object body, with the HTTP `Range` passed through.
 */
export function createS3Storage(options: S3StorageOptions): MediaStorage {
  const config: S3ClientConfig = { region: options.region, forcePathStyle: options.forcePathStyle };
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  const client = new S3Client(config);
  const Bucket = options.bucket;
  return {
    kind: 's3',
    async putFile(key, path, contentType) {
      assertSafeKey(key);
      await new Upload({
        client,
        params: { Bucket, Key: key, Body: createReadStream(path), ContentType: contentType },
        partSize: 5 * 1024 * 1024,
        queueSize: 4,
      }).done();
    },
    async stat(key) {
      assertSafeKey(key);
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async read(key, range) {
      assertSafeKey(key);
      const answer = await client.send(
        new GetObjectCommand({
          Bucket,
          Key: key,
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      );
      return answer.Body as Readable;
    },
    async delete(key) {
      assertSafeKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list() {
      // Keys start with `med_`: the prefix keeps any other object of a shared bucket out of the listing.
      for await (const page of paginateListObjectsV2({ client, pageSize: 1000 }, { Bucket, Prefix: 'med_' })) {
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined && SAFE_KEY.test(object.Key))
            yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
        }
      }
    },
  };
}

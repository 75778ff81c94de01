import type { MediaConfig } from './config.ts';
import { createLocalStorage } from './local-storage.ts';
import { createS3Storage } from './s3-storage.ts';
import type { MediaStorage } from './storage.ts';

export function storageFromConfig(config: MediaConfig): MediaStorage {
  if (config.MEDIA_STORAGE === 'local') return createLocalStorage(config.MEDIA_LOCAL_DIR);
  if (config.MEDIA_S3_BUCKET === undefined) throw new Error('MEDIA_STORAGE=s3 needs MEDIA_S3_BUCKET.');
  const credentials =
    config.MEDIA_S3_ACCESS_KEY_ID !== undefined && config.MEDIA_S3_SECRET_ACCESS_KEY !== undefined
      ? { accessKeyId: config.MEDIA_S3_ACCESS_KEY_ID, secretAccessKey: config.MEDIA_S3_SECRET_ACCESS_KEY }
      : undefined;
  return createS3Storage({
    bucket: config.MEDIA_S3_BUCKET,
    region: config.MEDIA_S3_REGION,
    endpoint: config.MEDIA_S3_ENDPOINT,
    forcePathStyle: config.MEDIA_S3_FORCE_PATH_STYLE,
    credentials,
  });
}

import type { MediaStorage } from '@svc/media';
import type { MediaInput, Network } from '@svc/providers';
import type { MediaRepository, MediaRow } from '../data/media.repository.ts';
import { mediaOf } from './media.ts';
import { publicUrlOf } from './media-view.ts';

export interface DeliveryMediaDeps {
  repository: MediaRepository;
  storage: MediaStorage;
  publicBaseUrl: string;
}

/** Networks that take only JPEG photos get the JPEG rendition of a PNG/WebP (docs/networks.md §1.4). */
const JPEG_ONLY: ReadonlySet<Network> = new Set(['instagram', 'tiktok']);

function inputOf(deps: DeliveryMediaDeps, row: MediaRow, network: Network): MediaInput {
  const rendition = row.renditionSizeBytes !== null && JPEG_ONLY.has(network);
  const key = rendition ? `${row.id}.jpg` : row.id;
  return {
    url: publicUrlOf(deps.publicBaseUrl, key),
    kind: row.kind as MediaInput['kind'],
    ...(row.pageCount === null ? {} : { pageCount: row.pageCount }),
    source: {
      contentType: rendition ? 'image/jpeg' : row.contentType,
      sizeBytes: Number(rendition ? row.renditionSizeBytes : row.sizeBytes),
      open: (span) => deps.storage.read(key, span),
    },
  };
}

/**
 * The media a delivery publishes, as the network should get them: library files with their public
 * URL (to pull) and a storage source (to stream by range). Jobs accepted before the library keep
 * their plain URLs. Undefined when a record is gone (it cannot be deleted while the job runs).
 */
export async function deliveryMedia(
  deps: DeliveryMediaDeps | undefined,
  job: { orgId: string; mediaIds: string[]; mediaUrls: string[]; mediaAltText?: string[] },
  network: Network,
): Promise<MediaInput[] | undefined> {
  const described = (inputs: MediaInput[]) =>
    inputs.map((input, index) => {
      const altText = job.mediaAltText?.[index];
      return altText ? { ...input, altText } : input;
    });
  if (job.mediaIds.length === 0 || deps === undefined) return described(mediaOf(job.mediaUrls));
  const rows = new Map((await deps.repository.findMany(job.orgId, job.mediaIds)).map((row) => [row.id, row]));
  const inputs: MediaInput[] = [];
  for (const id of job.mediaIds) {
    const row = rows.get(id);
    if (row === undefined) return undefined;
    inputs.push(inputOf(deps, row, network));
  }
  return described(inputs);
}
